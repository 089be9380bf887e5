import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { DateTime } from 'luxon'
import { toIso } from '#core/database/utc_date_time'
import { keysetPage, type Page, type PageRequest } from '#core/pagination/keyset_page'
import RuleRun from '#modules/automation/models/rule_run'
import type { PlannedAction } from '#modules/automation/services/rule_shapes'
import { chunksOf } from '#core/database/statement_chunks'

/** A run planned for an inbound SMS, not yet carried out. */
export interface NewRuleRun {
  ruleId: number | null
  ruleName: string
  kind: 'rule' | 'keyword'
  messageId: number
  conversationId: number
  phone: string
  deviceId: string | null
  simSlot: number | null
  actions: PlannedAction[]
  /** ISO 8601. */
  createdAt: string
}

/** Runs per insert statement. */
const INSERT_CHUNK = 50

/**
 * The rules' durable queue: the `automation_rule_runs` table and its cursor, `automation_state`
 * (docs/modules.md, Data access). The query builder for the queue's statements (the cursor, the
 * planned runs' inserts, the reply count), SQL text for the cursor's first row (`INSERT OR
 * IGNORE`, which the builder does not write); the RuleRun model for a run carried out and the log.
 */
export class RuleRunStore {
  /** The last inbound message planned; null when the cursor's row is missing. */
  async cursor(): Promise<number | null> {
    const state = await db.from('automation_state').where('id', 1).first()
    return state ? state.last_message_id : null
  }

  /** Puts the cursor at `messageId` if it has no row. */
  async startCursorAt(messageId: number): Promise<void> {
    await db.rawQuery('INSERT OR IGNORE INTO automation_state (id, last_message_id) VALUES (1, ?)', [messageId])
  }

  /** Stores the planned runs and moves the cursor past the last message planned, in the caller's transaction. */
  async addRuns(trx: TransactionClientContract, runs: NewRuleRun[], lastMessageId: number): Promise<void> {
    const rows = runs.map((run) => ({
      rule_id: run.ruleId,
      rule_name: run.ruleName,
      kind: run.kind,
      message_id: run.messageId,
      conversation_id: run.conversationId,
      phone: run.phone,
      device_id: run.deviceId,
      sim_slot: run.simSlot,
      status: 'pending',
      actions: JSON.stringify(run.actions),
      replies: 0,
      created_at: run.createdAt,
    }))
    for (const chunk of chunksOf(rows, INSERT_CHUNK)) await trx.table('automation_rule_runs').multiInsert(chunk)
    await trx.from('automation_state').where('id', 1).update({ last_message_id: lastMessageId })
  }

  /** The oldest pending runs. */
  async pending(limit: number): Promise<RuleRun[]> {
    return RuleRun.query().where('status', 'pending').orderBy('id', 'asc').limit(limit)
  }

  /** A run's actions with their outcomes so far, and its replies queued. */
  async recordProgress(run: RuleRun, actions: PlannedAction[], replies: number): Promise<void> {
    run.actions = actions
    run.replies = replies
    await run.save()
  }

  async finish(run: RuleRun, at: DateTime): Promise<void> {
    run.status = 'done'
    run.finishedAt = at
    await run.save()
  }

  /** Replies queued to this number by the runs created since `since` (ISO 8601), the run `exceptId` left out. */
  async repliesTo(phone: string, since: string, exceptId: number): Promise<number> {
    const [{ sent }] = await db.from('automation_rule_runs').where('phone', phone).whereNot('id', exceptId).where('created_at', '>=', since).sum('replies as sent')
    return Number(sent ?? 0)
  }

  /** A page of the run log, newest first. */
  async page(filters: PageRequest & { ruleId?: string; kind?: 'rule' | 'keyword' }): Promise<Page<RuleRun>> {
    const query = RuleRun.query()
    if (filters.ruleId) query.where('rule_id', Number(filters.ruleId))
    if (filters.kind) query.where('kind', filters.kind)
    return keysetPage(query, filters, 'created_at', (row) => toIso(row.createdAt))
  }
}
