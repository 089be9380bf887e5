import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { affectedRows } from '#core/database/affected_rows'
import { toIso } from '#core/database/utc_date_time'
import { keysetPage, type Page, type PageRequest } from '#core/pagination/keyset_page'
import WebhookDelivery, { type DeliveryStatus } from '#modules/webhooks/models/webhook_delivery'
import { chunksOf, marks } from '#core/database/statement_chunks'

/** A due delivery with what its attempt needs: the webhook's URL, headers and secret as of now. */
export interface DueDelivery {
  id: number
  target_key: string
  delivery_id: string
  webhook_id: number | null
  rule_url: string | null
  rule_secret_sealed: string | null
  event: string
  body: string
  attempts: number
  url: string | null
  method: string | null
  headers: string | null
  secret_sealed: string | null
  active: number | null
}

/** What an attempt left: its status, when the next one is due, what the receiver answered. */
export interface StoredOutcome {
  id: number
  status: DeliveryStatus
  attempts: number
  dueAt: string | null
  httpStatus: number | null
  durationMs: number
  answer: string | null
  error: string | null
  completedAt: string | null
}

export interface DeliveryFilters extends PageRequest {
  webhookId?: string
  status?: DeliveryStatus
  event?: string
}

/** Outcomes per statement: 9 values each, far below SQLite's bound-parameter limit. */
const OUTCOMES_PER_STATEMENT = 200
/** Rows per INSERT: 16 columns each stays far below SQLite's bound-parameter limit. */
const ROWS_PER_STATEMENT = 200
/** Ids bound in one statement, under SQLite's limit of bound variables. */
const IDS_PER_STATEMENT = 500

/**
 * The waiting (pending) deliveries of one webhook or of one automation rule's calls, less those
 * in flight: the table named with its index of pending deliveries (`webhook_deliveries_due`,
 * `INDEXED BY`), and the condition. SQLite's planner has no statistics here and prefers the
 * index of an equality, `webhook_deliveries_by_webhook`: a webhook switched off or a rule
 * changed would walk every delivery the webhook (or every call any rule) ever made, where the
 * pending ones are the few still queued. Named, a statement fails to prepare if the index is
 * ever gone, rather than slowing down unseen.
 */
export function waitingDeliveries(
  of: { webhookId: number } | { ruleId: string },
  inFlight: number[]
): { table: string; where: string; bindings: Array<string | number> } {
  const owner = 'webhookId' in of ? { where: 'webhook_id = ?', bindings: [of.webhookId] } : { where: 'webhook_id IS NULL AND rule_id = ?', bindings: [of.ruleId] }
  return {
    table: 'webhook_deliveries INDEXED BY webhook_deliveries_due',
    where: `status = 'pending' AND ${owner.where}${inFlight.length ? ` AND id NOT IN (${marks(inFlight)})` : ''}`,
    bindings: [...owner.bindings, ...inFlight],
  }
}

/**
 * The `webhook_deliveries` table, the delivery log and queue (docs/modules.md, Data access): the
 * WebhookDelivery model for the log the API reads, the query builder for the queue, and SQL text
 * for a batch of outcomes (one `UPDATE … FROM (VALUES …)` per 200, which the builder does not
 * write).
 */
export class DeliveryStore {
  /** Newest first, in pages; filters webhookId, status, event. */
  async page(filters: DeliveryFilters): Promise<Page<WebhookDelivery>> {
    const query = WebhookDelivery.query()
    if (filters.webhookId) query.where('webhook_id', Number(filters.webhookId))
    if (filters.status) query.where('status', filters.status)
    if (filters.event) query.where('event', filters.event)
    return keysetPage(query, filters, 'created_at', (row) => toIso(row.createdAt))
  }

  async find(id: number): Promise<WebhookDelivery | null> {
    return WebhookDelivery.find(id)
  }

  /** Writes recorded rows in the recording's transaction. */
  async addMany(trx: TransactionClientContract, rows: Array<Record<string, unknown>>): Promise<void> {
    for (let index = 0; index < rows.length; index += ROWS_PER_STATEMENT) {
      await trx.table('webhook_deliveries').multiInsert(rows.slice(index, index + ROWS_PER_STATEMENT))
    }
  }

  /** Writes one row at once; answers its id. */
  async add(row: Record<string, unknown>): Promise<number> {
    const [inserted] = await db.table('webhook_deliveries').insert(row).returning('id')
    return typeof inserted === 'object' ? inserted.id : inserted
  }

  /**
   * Pending deliveries due by `now`, oldest first, with their webhook's current settings, leaving
   * out those in flight and the targets that have no room left.
   */
  async due(now: string, limit: number, leaveOut: { ids: number[]; targets: string[] }): Promise<DueDelivery[]> {
    const query = db
      .from('webhook_deliveries as d')
      .leftJoin('webhooks as w', 'w.id', 'd.webhook_id')
      .where('d.status', 'pending')
      .where('d.due_at', '<=', now)
      .orderBy('d.due_at')
      .orderBy('d.id')
      .limit(limit)
      .select(
        'd.id',
        'd.target_key',
        'd.delivery_id',
        'd.webhook_id',
        'd.rule_url',
        'd.rule_secret_sealed',
        'd.event',
        'd.body',
        'd.attempts',
        'w.url',
        'w.method',
        'w.headers',
        'w.secret_sealed',
        'w.active'
      )
    if (leaveOut.ids.length) query.whereNotIn('d.id', leaveOut.ids)
    if (leaveOut.targets.length) query.whereNotIn('d.target_key', leaveOut.targets)
    return query
  }

  /** When the next pending delivery after `now` is due; null when none is. */
  async nextDueAfter(now: string): Promise<Date | null> {
    const next = await db.from('webhook_deliveries').where('status', 'pending').where('due_at', '>', now).min('due_at as dueAt').first()
    return next?.dueAt ? new Date(next.dueAt) : null
  }

  /** Marks a webhook's waiting deliveries (not those in flight) failed with `reason`; answers how many. */
  async dropWaiting(webhookId: number, inFlight: number[], reason: string, at: string): Promise<number> {
    const waiting = waitingDeliveries({ webhookId }, inFlight)
    const dropped = await db.rawQuery(
      `UPDATE ${waiting.table} SET status = 'failed', due_at = NULL, error = ?, completed_at = ?, updated_at = ? WHERE ${waiting.where} RETURNING id`,
      [reason, at, at, ...waiting.bindings]
    )
    return dropped.length
  }

  /**
   * A rule's waiting calls (not those in flight) follow the rule as it is now: they take its URL
   * and secret, or, `rule` null, are marked failed with `reason`. Answers the ids of those dropped.
   */
  async retargetRuleCalls(ruleId: string, inFlight: number[], rule: { url: string; secretSealed: string } | null, reason: string, at: string): Promise<number[]> {
    const waiting = waitingDeliveries({ ruleId }, inFlight)
    if (rule) {
      await db.rawQuery(`UPDATE ${waiting.table} SET rule_url = ?, rule_secret_sealed = ?, updated_at = ? WHERE ${waiting.where}`, [
        rule.url,
        rule.secretSealed,
        at,
        ...waiting.bindings,
      ])
      return []
    }
    const rows = await db.rawQuery(`SELECT id FROM ${waiting.table} WHERE ${waiting.where}`, waiting.bindings)
    const dropped: number[] = rows.map((row: { id: number }) => row.id)
    for (const chunk of chunksOf(dropped, IDS_PER_STATEMENT)) {
      await db.from('webhook_deliveries').whereIn('id', chunk).update({ status: 'failed', due_at: null, error: reason, completed_at: at, updated_at: at })
    }
    return dropped
  }

  /** Stores a batch of outcomes on rows still pending, in the caller's transaction. */
  async storeOutcomes(trx: TransactionClientContract, outcomes: StoredOutcome[], at: string): Promise<void> {
    for (const chunk of chunksOf(outcomes, OUTCOMES_PER_STATEMENT)) {
      await trx.rawQuery(
        `WITH outcome(id, status, attempts, due_at, http_status, duration_ms, answer, error, completed_at) AS (VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')})
           UPDATE webhook_deliveries SET status = outcome.status, attempts = outcome.attempts, due_at = outcome.due_at,
             http_status = outcome.http_status, duration_ms = outcome.duration_ms, answer = outcome.answer, error = outcome.error,
             completed_at = outcome.completed_at, updated_at = ?
           FROM outcome
           WHERE webhook_deliveries.id = outcome.id AND webhook_deliveries.status = 'pending'`,
        [...chunk.flatMap((row): any[] => [row.id, row.status, row.attempts, row.dueAt, row.httpStatus, row.durationMs, row.answer, row.error, row.completedAt]), at]
      )
    }
  }

  /** Deletes up to `limit` finished deliveries created before `before`, oldest first; answers how many. */
  async purgeFinished(before: string, limit: number): Promise<number> {
    const oldest = db
      .from('webhook_deliveries')
      .select('id')
      .whereNot('status', 'pending')
      .where('created_at', '<', before)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
    return affectedRows(await db.from('webhook_deliveries').whereIn('id', oldest).delete())
  }

  /** Deliveries waiting for a retry (the pending rows, few, on their partial index). */
  async retryingCount(): Promise<number> {
    const row = await db.from('webhook_deliveries').where('status', 'pending').where('attempts', '>', 0).count('* as count').first()
    return Number(row?.count ?? 0)
  }

  /** Deliveries created since `since` that ended failed (that part of the created_at index). */
  async failedSinceCount(since: string): Promise<number> {
    const row = await db.from('webhook_deliveries').where('created_at', '>=', since).where('status', 'failed').count('* as count').first()
    return Number(row?.count ?? 0)
  }
}
