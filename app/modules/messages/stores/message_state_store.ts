import db from '@adonisjs/lucid/services/db'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { readConnection } from '#core/database/read_connection'
import type { PhoneOrder } from '#modules/devices/public'
import type { MessageStatus } from '#modules/messages/message_values'
import type { MessageChange } from '#modules/messages/services/message_changes'
import { eachChunk, marks, tuples } from '#core/database/statement_chunks'

/** A queued message due to be handed to a phone. */
export interface DueMessage {
  id: number
  phone: string
  body: string
  /** The phone and SIM the send forced (-1: a phone id that cannot exist). */
  forcedDeviceId: number | null
  forcedSimSlot: number | null
}

/** A message handed to a phone's SIM, with the text as the phone's options made it. */
export interface Order {
  messageId: number
  deviceId: number
  simSlot: number
  text: string
}

/** A queued message held back by a SIM's minimum interval or per-minute limit, until `until`. */
export interface Hold {
  messageId: number
  reason: 'sim_cadence' | 'sim_rate'
  until: Date
}

/** A queued message that cannot be sent at all, and why. */
export interface Unsendable {
  messageId: number
  errorCode: string
}

/** An order as stored, read to be withdrawn from its phone (dates as stored). */
export interface StoredOrder {
  id: number
  sim_slot: number | null
  ordered_at: string
}

/** An order whose attempt a phone reported failed, as read before the guarded write. */
export interface FailingOrder extends StoredOrder {
  conversation_id: number
  direction: 'in' | 'out'
  status: 'queued' | 'dispatched' | 'sent'
  attempts: number
  device_id: string
  forced_device_id: number | null
  forced_sim_slot: number | null
  campaign_id: number | null
}

/** A report's change of a message, guarded by the phone and, when it names one, the hand-out. */
export interface ReportedChange {
  messageId: number
  deviceId: number
  at: Date
  orderedAt?: Date
  target: 'dispatched' | 'sent' | 'delivered'
  /** Taken straight to delivered (`recordTaken`): when the receipt came; `at` is when it was sent. */
  deliveredAt?: Date
}

/** A failed attempt to write: queued again (with its wait) or failed, from the order as read. */
export interface FailedAttempt {
  order: FailingOrder
  status: 'queued' | 'failed'
  attempts: number
  errorCode: string
  retryAt: Date | null
  at: Date
}

/** A row as the statements return it (`RETURNING ${CHANGED_COLUMNS}`). */
interface ChangedRow {
  id: number
  conversation_id: number
  direction: 'in' | 'out'
  status: MessageStatus
  campaign_id: number | null
}

/** The columns each write returns, so the batch knows what it changed without reading again. */
const CHANGED_COLUMNS = 'id, conversation_id, direction, status, campaign_id'

function changesOf(rows: ChangedRow[]): MessageChange[] {
  return rows.map((row) => ({ id: row.id, conversationId: row.conversation_id, direction: row.direction, status: row.status, campaignId: row.campaign_id }))
}

/**
 * Rows per multi-row statement: a dispatch pass (1,000 messages) or a batch of reports in one
 * statement. At most 11 values a row here: 11,000, below SQLite's limit of 32,766.
 */
const CHUNK = 1000

/** Not yet handed to a phone: a campaign may still pause, resume or cancel it. */
const NOT_ORDERED = `((status = 'queued' AND ordered_at IS NULL) OR status = 'pending_quota_exceeded')`

/**
 * Can still be withdrawn (cancelled): not handed to a phone yet, or paused. An order a phone
 * holds may be on its way and goes on, unless `cancellable` names its phone.
 */
const WITHDRAWABLE = `(${NOT_ORDERED} OR status = 'paused')`

/**
 * What a cancel moves: what can still be withdrawn, and the orders the phones named have not
 * accepted yet (their kind can take such an order back: PhoneFleet.phonesTakingBackUnaccepted).
 */
function cancellable(phonesTakingBack: number[]): string {
  if (!phonesTakingBack.length) return WITHDRAWABLE
  const phones = phonesTakingBack.map((id) => `'${Number(id)}'`).join(', ')
  return `(${WITHDRAWABLE} OR (status = 'queued' AND ordered_at IS NOT NULL AND device_id IN (${phones})))`
}

/** An order a cancel took back from its phone: which SIM it was counted on, and when (ISO 8601, as stored). */
export type TakenBackOrder = { messageId: number; deviceId: number; simSlot: number | null; orderedAt: string }

/** A cancel's changes; the orders among them it took back from their phones go to `tookBack` first. */
function cancelledOf(rows: Array<ChangedRow & { device_id: string | null; sim_slot: number | null; ordered_at: string | null }>, tookBack: (orders: TakenBackOrder[]) => void): MessageChange[] {
  const taken = rows.filter((row) => row.ordered_at && row.device_id)
  tookBack(taken.map((row) => ({ messageId: row.id, deviceId: Number(row.device_id), simSlot: row.sim_slot, orderedAt: row.ordered_at! })))
  return changesOf(rows)
}

/*
 * The four statements below name the index that bounds them with `INDEXED BY` (docs/modules.md,
 * Data access: SQLite's planner has no statistics here and would take an index with an equality
 * on `direction` or the phone, walking every message ever stored); they are exported for the
 * tests that hold their plans.
 */

/**
 * The statement of `MessageStateStore.dueForDispatch`: both parts from `messages_due`, the index
 * of the queued outbound messages (docs/sending.md, How a message leaves).
 */
export function dueStatement(now: Date, options: { limit: number; forcedOnly: boolean }): { sql: string; bindings: string[] } {
  const at = now.toISOString()
  return {
    sql: `SELECT * FROM (
         SELECT id, phone, body, forced_device_id, forced_sim_slot, NULL AS next FROM messages INDEXED BY messages_due
         WHERE status = 'queued' AND direction = 'out' AND ordered_at IS NULL
           AND (scheduled_at IS NULL OR scheduled_at <= ?) AND (held_until IS NULL OR held_until <= ?)
           ${options.forcedOnly ? 'AND forced_device_id IS NOT NULL' : ''}
         ORDER BY created_at ASC, id ASC
         LIMIT ${Number(options.limit)}
       )
       UNION ALL
       SELECT NULL, NULL, NULL, NULL, NULL, MIN(MAX(COALESCE(scheduled_at, ''), COALESCE(held_until, ''))) FROM messages INDEXED BY messages_due
       WHERE status = 'queued' AND direction = 'out' AND ordered_at IS NULL AND (scheduled_at > ? OR held_until > ?)`,
    bindings: [at, at, at, at],
  }
}

/**
 * A phone's orders it has not accepted yet (queued, handed to it), when it reconnects or has been
 * away 5 minutes: `columns`, oldest first, ordered up to `orderedUpTo` when given; from the
 * queue's index, not the phone's (every message it ever sent).
 */
export function unacceptedStatement(deviceId: number, columns: string[], orderedUpTo?: Date): { sql: string; bindings: string[] } {
  return {
    sql: `SELECT ${columns.join(', ')} FROM messages INDEXED BY messages_due
       WHERE status = 'queued' AND direction = 'out' AND device_id = ? AND ordered_at IS NOT NULL${orderedUpTo ? ' AND ordered_at <= ?' : ''}
       ORDER BY id ASC`,
    bindings: orderedUpTo ? [String(deviceId), orderedUpTo.toISOString()] : [String(deviceId)],
  }
}

/**
 * Fails the orders a phone took (dispatched), when it is unpaired or switched off: from the index
 * on status (the few in flight), not the phone's.
 */
export function takenOrdersStatement(deviceId: number, errorCode: string, at: Date): { sql: string; bindings: string[] } {
  const now = at.toISOString()
  return {
    sql: `UPDATE messages INDEXED BY messages_status_created_at_id_index
       SET status = 'failed', error_code = ?, failed_at = ?, ordered_at = NULL, updated_at = ?
       WHERE status = 'dispatched' AND device_id = ?
       RETURNING ${CHANGED_COLUMNS}`,
    bindings: [errorCode, now, now, String(deviceId)],
  }
}

/**
 * Cancels what still waits for these numbers (`cancellable`) when they opt out, inside the
 * transaction that records the opt-out: from the numbers' own index, not the direction's.
 */
export function waitingToStatement(numbers: string[], errorCode: string, at: Date, phonesTakingBack: number[]): { sql: string; bindings: string[] } {
  return {
    sql: `UPDATE messages INDEXED BY messages_phone_created_at_id_index SET status = 'cancelled', error_code = ?, updated_at = ?
       WHERE phone IN (${marks(numbers)}) AND direction = 'out' AND ${cancellable(phonesTakingBack)}
       RETURNING ${CHANGED_COLUMNS}, device_id, sim_slot, ordered_at`,
    bindings: [errorCode, at.toISOString(), ...numbers],
  }
}

/**
 * A message's state after it is queued, in the `messages` table (docs/modules.md, Data access):
 * SQL text, each change guarded by the state it moves from and answering what it changed (a
 * repeated report or a race changes nothing twice); a batch is one `UPDATE … FROM (VALUES …)` or
 * `UPDATE … WHERE id IN (…)` per chunk. The query builder for the reads of orders before a write
 * guarded by what they read. The ledger announces what changed.
 */
export class MessageStateStore {
  /**
   * The due messages (queued, not ordered, scheduledAt and heldUntil passed), oldest first, and
   * when the next one not due yet will be: one statement.
   */
  async dueForDispatch(now: Date, options: { limit: number; forcedOnly: boolean }): Promise<{ due: DueMessage[]; nextDueAt: Date | null }> {
    const { sql, bindings } = dueStatement(now, options)
    // On the read connection: the pass between a send and its order must not wait behind the
    // phones' reports being written.
    const rows = await readConnection().rawQuery(sql, bindings)
    const last = rows.pop()
    return {
      due: rows.map((row: any) => ({ id: row.id, phone: row.phone, body: row.body, forcedDeviceId: row.forced_device_id, forcedSimSlot: row.forced_sim_slot })),
      nextDueAt: last?.next ? new Date(last.next) : null,
    }
  }

  /** Stores orders (the text as it leaves, counted) on messages still queued and not ordered. */
  async storeOrders(orders: Array<Order & { encoding: string; segments: number }>, at: Date): Promise<MessageChange[]> {
    const now = at.toISOString()
    return this.#joined(
      'chosen(id, device_id, sim_slot, body, encoding, segments)',
      orders.map((order) => [order.messageId, String(order.deviceId), order.simSlot, order.text, order.encoding, order.segments]),
      `ordered_at = ?, device_id = chosen.device_id, sim_slot = chosen.sim_slot, body = chosen.body,
       encoding = chosen.encoding, segments = chosen.segments, hold_reason = NULL, held_until = NULL, updated_at = ?`,
      `messages.status = 'queued' AND messages.ordered_at IS NULL`,
      [now, now]
    )
  }

  async waitForQuota(messageIds: number[], at: Date): Promise<MessageChange[]> {
    const change = { status: 'pending_quota_exceeded', hold_reason: null, held_until: null, updated_at: at.toISOString() }
    return this.#move(messageIds, `status = 'queued'`, change)
  }

  async hold(holds: Hold[], at: Date): Promise<MessageChange[]> {
    const rows = holds.map((entry) => [entry.messageId, entry.reason, entry.until.toISOString()])
    const set = `hold_reason = held.reason, held_until = held.until, updated_at = ?`
    return this.#joined('held(id, reason, until)', rows, set, `messages.status = 'queued'`, [at.toISOString()])
  }

  async failUnsendable(failures: Unsendable[], at: Date): Promise<MessageChange[]> {
    const rows = failures.map((entry) => [entry.messageId, entry.errorCode])
    const set = `status = 'failed', error_code = unsendable.error_code, failed_at = ?, updated_at = ?`
    return this.#joined('unsendable(id, error_code)', rows, set, `messages.status = 'queued'`, [at.toISOString(), at.toISOString()])
  }

  /** The orders a phone has not accepted yet, oldest first, as they were handed to it. */
  async waitingOrdersOf(deviceId: number): Promise<PhoneOrder[]> {
    const { sql, bindings } = unacceptedStatement(deviceId, ['id', 'phone', 'body', 'sim_slot', 'ordered_at'])
    const rows = await db.rawQuery(sql, bindings)
    return rows.map((row: any) => ({ messageId: row.id, to: row.phone, text: row.body, simSlot: row.sim_slot ?? 0, orderedAt: new Date(row.ordered_at) }))
  }

  /** The orders a phone has not accepted yet (ordered up to `orderedUpTo` when given). */
  async unacceptedOrdersOf(deviceId: number, orderedUpTo?: Date): Promise<StoredOrder[]> {
    const { sql, bindings } = unacceptedStatement(deviceId, ['id', 'sim_slot', 'ordered_at'], orderedUpTo)
    return db.rawQuery(sql, bindings)
  }

  /**
   * These orders go back to the queue: to any phone, or to wait for the one the send forced.
   * Guarded by the order as read: a report may have come in between, or the message may have
   * gone back to the queue and out to another phone.
   */
  async requeue(deviceId: number, orders: StoredOrder[]): Promise<MessageChange[]> {
    return this.#joined(
      'r(id, ordered_at)',
      orders.map((order) => [order.id, order.ordered_at]),
      `ordered_at = NULL, sim_slot = forced_sim_slot, device_id = CASE WHEN forced_device_id IS NULL THEN NULL ELSE device_id END`,
      `messages.ordered_at = r.ordered_at AND messages.device_id = ? AND messages.status = 'queued'`,
      [String(deviceId)]
    )
  }

  /** The orders a phone took (dispatched) fail with `errorCode`. */
  async failTakenOrdersOf(deviceId: number, errorCode: string, at: Date): Promise<MessageChange[]> {
    const { sql, bindings } = takenOrdersStatement(deviceId, errorCode, at)
    return changesOf(await db.rawQuery(sql, bindings))
  }

  async releaseHolds(at: Date): Promise<MessageChange[]> {
    return changesOf(await this.#set({ hold_reason: null, held_until: null, updated_at: at.toISOString() }, `status = 'queued' AND hold_reason IS NOT NULL`))
  }

  async releaseQuotaWaits(at: Date): Promise<MessageChange[]> {
    return changesOf(await this.#set({ status: 'queued', updated_at: at.toISOString() }, `status = 'pending_quota_exceeded'`))
  }

  /**
   * Accepted, sent and delivered: the order is taken (dispatched), sent or delivered, from queued
   * and ordered or, to sent or delivered, from dispatched. A receipt that came with the order's
   * acceptance or send is written in the same row write (`deliveredAt`), not a second one.
   */
  async recordTaken(changes: ReportedChange[]): Promise<MessageChange[]> {
    return this.#applyReports(
      changes,
      // One attempt is spent when the phone takes the order, whichever report says so first.
      `status = r.target, attempts = attempts + (CASE WHEN messages.status = 'queued' THEN 1 ELSE 0 END),
       sent_at = CASE WHEN r.target = 'dispatched' THEN messages.sent_at ELSE r.at END,
       delivered_at = CASE WHEN r.target = 'delivered' THEN r.delivered_at ELSE messages.delivered_at END,
       updated_at = COALESCE(r.delivered_at, r.at)`,
      `((messages.status = 'queued' AND messages.ordered_at IS NOT NULL) OR (r.target <> 'dispatched' AND messages.status = 'dispatched'))`
    )
  }

  /** Delivery receipts, from sent or dispatched. */
  async recordDelivered(changes: ReportedChange[]): Promise<MessageChange[]> {
    return this.#applyReports(changes, `status = 'delivered', delivered_at = r.at, updated_at = r.at`, `messages.status IN ('sent', 'dispatched')`)
  }

  /**
   * One guarded multi-row update per chunk of reported changes. A change naming its hand-out
   * (`ordered_at`) changes the message only while that is its current one.
   */
  async #applyReports(changes: ReportedChange[], set: string, guard: string): Promise<MessageChange[]> {
    const rows = changes.map((change) => [
      change.messageId,
      String(change.deviceId),
      change.at.toISOString(),
      change.target,
      change.orderedAt?.toISOString() ?? null,
      change.deliveredAt?.toISOString() ?? null,
    ])
    const handOut = `messages.device_id = r.device_id AND (r.ordered_at IS NULL OR messages.ordered_at = r.ordered_at)`
    return this.#joined('r(id, device_id, at, target, ordered_at, delivered_at)', rows, set, `${handOut} AND ${guard}`)
  }

  /** The orders among these messages a phone holds (dispatched, or queued and ordered). */
  async failingOrders(messageIds: number[]): Promise<FailingOrder[]> {
    return eachChunk(messageIds, CHUNK, (chunk) =>
      db
        .from('messages')
        .whereIn('id', chunk)
        .where((query) =>
          query.whereIn('status', ['dispatched', 'sent']).orWhere((queued) => queued.where('status', 'queued').whereNotNull('ordered_at'))
        )
        .select('id', 'conversation_id', 'direction', 'status', 'attempts', 'device_id', 'forced_device_id', 'forced_sim_slot', 'sim_slot', 'ordered_at', 'campaign_id')
    )
  }

  /**
   * Failed attempts, each guarded by its order as read (a message that moved in between is left
   * alone); answers the ids changed.
   */
  async failAttempts(attempts: FailedAttempt[]): Promise<Set<number>> {
    const rows = attempts.map(({ order, status, attempts: count, errorCode, retryAt, at }) => [
      order.id,
      order.status,
      order.device_id,
      order.ordered_at,
      status,
      count,
      errorCode,
      retryAt?.toISOString() ?? null,
      order.forced_device_id === null ? null : String(order.forced_device_id),
      order.forced_sim_slot,
      at.toISOString(),
    ])
    const changed = await this.#joined(
      'f(id, from_status, from_device_id, from_ordered_at, status, attempts, error_code, held_until, device_id, sim_slot, at)',
      rows,
      `status = f.status, attempts = f.attempts, error_code = f.error_code, ordered_at = NULL,
       held_until = CASE WHEN f.status = 'queued' THEN f.held_until ELSE messages.held_until END,
       hold_reason = CASE WHEN f.status = 'queued' THEN NULL ELSE messages.hold_reason END,
       device_id = CASE WHEN f.status = 'queued' THEN f.device_id ELSE messages.device_id END,
       sim_slot = CASE WHEN f.status = 'queued' THEN f.sim_slot ELSE messages.sim_slot END,
       failed_at = CASE WHEN f.status = 'failed' THEN f.at ELSE messages.failed_at END,
       updated_at = f.at`,
      `messages.status = f.from_status AND messages.device_id = f.from_device_id AND messages.ordered_at = f.from_ordered_at`
    )
    return new Set(changed.map((change) => change.id))
  }

  /** Failed messages go back to the queue with their attempts restarted. */
  async retryFailed(messageIds: number[], at: Date): Promise<MessageChange[]> {
    const now = at.toISOString()
    const change = { status: 'queued', attempts: 0, error_code: null, failed_at: null, hold_reason: null, held_until: null, updated_at: now }
    return this.#move(messageIds, `status = 'failed'`, change)
  }

  async pause(messageIds: number[], at: Date): Promise<MessageChange[]> {
    return this.#move(messageIds, NOT_ORDERED, { status: 'paused', updated_at: at.toISOString() })
  }

  async resume(messageIds: number[], at: Date): Promise<MessageChange[]> {
    return this.#move(messageIds, `status = 'paused'`, { status: 'queued', updated_at: at.toISOString() })
  }

  /** These messages are cancelled if they still can be (`cancellable`); `tookBack` hears each statement's orders as it returns. */
  async cancel(messageIds: number[], errorCode: string, at: Date, phonesTakingBack: number[], tookBack: (orders: TakenBackOrder[]) => void): Promise<MessageChange[]> {
    return eachChunk(messageIds, CHUNK * 2, async (chunk) =>
      cancelledOf(
        await db.rawQuery(
          `UPDATE messages SET status = 'cancelled', error_code = ?, updated_at = ?
           WHERE id IN (${marks(chunk)}) AND direction = 'out' AND ${cancellable(phonesTakingBack)}
           RETURNING ${CHANGED_COLUMNS}, device_id, sim_slot, ordered_at`,
          [errorCode, at.toISOString(), ...chunk]
        ),
        tookBack
      )
    )
  }

  /**
   * What still waits for these numbers is cancelled (`cancellable`), on the caller's client (its
   * transaction), one statement per chunk of numbers; `tookBack` hears each statement's orders.
   */
  async cancelWaitingTo(
    client: QueryClientContract,
    numbers: string[],
    errorCode: string,
    at: Date,
    phonesTakingBack: number[],
    tookBack: (orders: TakenBackOrder[]) => void
  ): Promise<MessageChange[]> {
    return eachChunk(numbers, CHUNK * 2, async (chunk) => {
      const { sql, bindings } = waitingToStatement(chunk, errorCode, at, phonesTakingBack)
      return cancelledOf(await client.rawQuery(sql, bindings), tookBack)
    })
  }

  /** Outbound messages among `messageIds` in the state `from` take `change`. */
  async #move(messageIds: number[], from: string, change: Record<string, string | number | null>): Promise<MessageChange[]> {
    return this.#changed(messageIds, CHUNK * 2, (chunk) => this.#set(change, `id IN (${marks(chunk)}) AND direction = 'out' AND ${from}`, chunk))
  }

  /** The messages `where` selects (its `?` bound by `params`) take `change`; answers the rows changed. */
  #set(change: Record<string, string | number | null>, where: string, params: unknown[] = []): Promise<ChangedRow[]> {
    const columns = Object.keys(change)
    return db.rawQuery(
      `UPDATE messages SET ${columns.map((column) => `${column} = ?`).join(', ')}
       WHERE ${where}
       RETURNING ${CHANGED_COLUMNS}`,
      [...columns.map((column) => change[column]), ...params]
    )
  }

  /**
   * One `UPDATE … FROM (VALUES …)` per chunk of `rows`, the list named and its columns given by
   * `values` (`name(id, …)`), joined on the message's id: `set` on the messages `where` still
   * allows it. `params` are bound after the rows' values, as they come after them in the text.
   */
  #joined(values: string, rows: unknown[][], set: string, where: string, params: unknown[] = []): Promise<MessageChange[]> {
    const name = values.slice(0, values.indexOf('('))
    return this.#changed(rows, CHUNK, (chunk) =>
      db.rawQuery(
        `WITH ${values} AS (VALUES ${tuples(chunk)})
         UPDATE messages SET ${set}
         FROM ${name}
         WHERE messages.id = ${name}.id AND ${where}
         RETURNING ${CHANGED_COLUMNS}`,
        [...chunk.flat(), ...params]
      )
    )
  }

  /** A statement per chunk; answers what they all changed. */
  async #changed<T>(items: T[], size: number, statement: (chunk: T[]) => Promise<ChangedRow[]>): Promise<MessageChange[]> {
    return changesOf(await eachChunk(items, size, statement))
  }
}
