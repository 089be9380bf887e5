import db from '@adonisjs/lucid/services/db'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { readConnection } from '#core/database/read_connection'
import emitter from '@adonisjs/core/services/emitter'
import { countSegments } from '#core/sms/segment_counter'
import { recordConversationActivity } from '#modules/conversations/public'
import { CHANGED_COLUMNS, announceChanges, changesOf, type ChangedRow, type MessageChange } from '#modules/messages/services/message_changes'
import { transaction } from '#core/database/transaction'
import type { InboundReport } from '#modules/devices/public'
import { insertReceived } from '#modules/messages/services/message_inserts'

/** Waits before attempts 2, 3, 4, ... of a message whose attempt failed. */
export const RETRY_WAITS_MS = [30_000, 120_000, 600_000, 1_800_000]

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

/** An order stored but not accepted by its phone yet. */
export interface WaitingOrder {
  messageId: number
  phone: string
  text: string
  simSlot: number
  orderedAt: Date
}

/** An order that left its phone without the SMS: which SIM it was counted on, and when. */
export interface WithdrawnOrder {
  messageId: number
  deviceId: number
  simSlot: number | null
  /** ISO 8601: when it was handed to the phone. */
  orderedAt: string
}

/** A report's message and, when it names one, its hand-out: reports are folded per key. */
function handOutKey(report: PhoneReport): string {
  return report.orderedAt ? `${report.messageId}@${report.orderedAt.getTime()}` : String(report.messageId)
}

/** What a phone said about one of its orders. */
export type PhoneReport =
  | { kind: 'accepted' | 'sent' | 'delivered'; deviceId: number; messageId: number; at: Date; orderedAt?: Date }
  | {
      kind: 'failed'
      deviceId: number
      messageId: number
      at: Date
      orderedAt?: Date
      errorCode: string
      maxAttempts: number
      /** False when another attempt could send the SMS twice: the message fails at once. */
      retryable: boolean
    }

/** What a batch of reports changed; its events go out when `announce` is called. */
export interface RecordedReports {
  /** The orders whose attempt failed (queued again for a retry, or failed for good). */
  failedAttempts: Array<WithdrawnOrder & { errorCode: string }>
  /** The earliest retry the batch scheduled. */
  retryAt: Date | null
  announce(): Promise<void>
}

type Announcement =
  | { event: 'message.sent'; data: { id: string; deviceId: string; status: 'sent'; at: Date } }
  | { event: 'message.delivered'; data: { id: string; status: 'delivered'; at: Date } }
  | { event: 'message.failed'; data: { id: string; status: 'failed'; at: Date } }

/**
 * Rows per multi-row statement: a dispatch pass (1,000 messages) or a batch of reports in one
 * statement. At most 11 values a row here: 11,000, below SQLite's limit of 32,766.
 */
const CHUNK = 1000

/** Not yet handed to a phone: a campaign may still pause, resume or cancel it. */
const NOT_ORDERED = `((status = 'queued' AND ordered_at IS NULL) OR status = 'pending_quota_exceeded')`

/**
 * Can still be withdrawn (cancelled): not handed to a phone yet, or paused. An order a phone
 * holds may be on its way and goes on.
 */
const WITHDRAWABLE = `(${NOT_ORDERED} OR status = 'paused')`

/**
 * The one owner of a message's state after it is queued: every change the dispatcher, the
 * phones' reports, unpairing, settings or a campaign decide is written here, guarded by the
 * state it moves from (a repeated report or a race changes nothing twice), and the public
 * message events (message.sent, .delivered, .failed, .received) are emitted here after the
 * write. The hot paths take batches and cost a few multi-row statements per batch. Other
 * modules keep their own tables: a received SMS touches its conversation through the
 * conversations module's upsert in the same transaction, and when a change here must be matched
 * elsewhere (a SIM's day count given back), the operation answers what changed and the caller
 * writes its own statement after this one.
 */
export class MessageLedger {
  /**
   * The due messages (queued, not ordered, scheduledAt and heldUntil passed), oldest first, and
   * when the next one not due yet will be: one statement.
   */
  async dueForDispatch(now: Date, options: { limit: number; forcedOnly: boolean }): Promise<{ due: DueMessage[]; nextDueAt: Date | null }> {
    const at = now.toISOString()
    // On the read connection: the pass between a send and its order must not wait behind the
    // phones' reports being written.
    const rows = await readConnection().rawQuery(
      `SELECT * FROM (
         SELECT id, phone, body, forced_device_id, forced_sim_slot, NULL AS next FROM messages
         WHERE status = 'queued' AND direction = 'out' AND ordered_at IS NULL
           AND (scheduled_at IS NULL OR scheduled_at <= ?) AND (held_until IS NULL OR held_until <= ?)
           ${options.forcedOnly ? 'AND forced_device_id IS NOT NULL' : ''}
         ORDER BY created_at ASC, id ASC
         LIMIT ${Number(options.limit)}
       )
       UNION ALL
       SELECT NULL, NULL, NULL, NULL, NULL, MIN(MAX(COALESCE(scheduled_at, ''), COALESCE(held_until, ''))) FROM messages
       WHERE status = 'queued' AND direction = 'out' AND ordered_at IS NULL AND (scheduled_at > ? OR held_until > ?)`,
      [at, at, at, at]
    )
    const last = rows.pop()
    return {
      due: rows.map((row: any) => ({ id: row.id, phone: row.phone, body: row.body, forcedDeviceId: row.forced_device_id, forcedSimSlot: row.forced_sim_slot })),
      nextDueAt: last?.next ? new Date(last.next) : null,
    }
  }

  /**
   * Stores a dispatch pass's orders (the text as it leaves, its encoding and segments); answers
   * the messages stored. A message that changed since it was read (cancelled, deleted, ordered)
   * is not.
   */
  async storeOrders(orders: Order[], at: Date): Promise<Set<number>> {
    const now = at.toISOString()
    const stored = new Set<number>()
    const changed: ChangedRow[] = []
    for (let start = 0; start < orders.length; start += CHUNK) {
      const chunk = orders.slice(start, start + CHUNK)
      const rows = await db.rawQuery(
        `WITH chosen(id, device_id, sim_slot, body, encoding, segments) AS (VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')})
         UPDATE messages SET ordered_at = ?, device_id = chosen.device_id, sim_slot = chosen.sim_slot, body = chosen.body,
           encoding = chosen.encoding, segments = chosen.segments, hold_reason = NULL, held_until = NULL, updated_at = ?
         FROM chosen
         WHERE messages.id = chosen.id AND messages.status = 'queued' AND messages.ordered_at IS NULL
         RETURNING ${CHANGED_COLUMNS}`,
        [
          ...chunk.flatMap((order): any[] => {
            const { encoding, segments } = countSegments(order.text)
            return [order.messageId, String(order.deviceId), order.simSlot, order.text, encoding, segments]
          }),
          now,
          now,
        ]
      )
      for (const row of rows) stored.add(row.id)
      changed.push(...rows)
    }
    await announceChanges(changesOf(changed))
    return stored
  }

  /** Queued messages every SIM's daily quota refuses wait for a quota (pending_quota_exceeded). */
  async waitForQuota(messageIds: number[], at: Date): Promise<number> {
    const changed: ChangedRow[] = []
    for (let start = 0; start < messageIds.length; start += CHUNK) {
      const chunk = messageIds.slice(start, start + CHUNK)
      changed.push(
        ...(await db.rawQuery(
          `UPDATE messages SET status = 'pending_quota_exceeded', hold_reason = NULL, held_until = NULL, updated_at = ?
           WHERE id IN (${chunk.map(() => '?').join(', ')}) AND status = 'queued'
           RETURNING ${CHANGED_COLUMNS}`,
          [at.toISOString(), ...chunk]
        ))
      )
    }
    await announceChanges(changesOf(changed))
    return changed.length
  }

  /** Queued messages held back by a SIM's minimum interval or per-minute limit, no attempt spent. */
  async hold(holds: Array<{ messageId: number; reason: 'sim_cadence' | 'sim_rate'; until: Date }>, at: Date): Promise<number> {
    const changed: ChangedRow[] = []
    for (let start = 0; start < holds.length; start += CHUNK) {
      const chunk = holds.slice(start, start + CHUNK)
      const rows = await db.rawQuery(
        `WITH held(id, reason, until) AS (VALUES ${chunk.map(() => '(?, ?, ?)').join(', ')})
         UPDATE messages SET hold_reason = held.reason, held_until = held.until, updated_at = ?
         FROM held
         WHERE messages.id = held.id AND messages.status = 'queued'
         RETURNING ${CHANGED_COLUMNS}`,
        [...chunk.flatMap((entry) => [entry.messageId, entry.reason, entry.until.toISOString()]), at.toISOString()]
      )
      changed.push(...rows)
    }
    await announceChanges(changesOf(changed))
    return changed.length
  }

  /** Queued messages that cannot be sent at all (their forced phone or SIM does not exist) fail. */
  async failUnsendable(failures: Array<{ messageId: number; errorCode: string }>, at: Date): Promise<number> {
    const failed: ChangedRow[] = []
    for (let start = 0; start < failures.length; start += CHUNK) {
      const chunk = failures.slice(start, start + CHUNK)
      const rows = await db.rawQuery(
        `WITH unsendable(id, error_code) AS (VALUES ${chunk.map(() => '(?, ?)').join(', ')})
         UPDATE messages SET status = 'failed', error_code = unsendable.error_code, failed_at = ?, updated_at = ?
         FROM unsendable
         WHERE messages.id = unsendable.id AND messages.status = 'queued'
         RETURNING ${CHANGED_COLUMNS}`,
        [...chunk.flatMap((entry) => [entry.messageId, entry.errorCode]), at.toISOString(), at.toISOString()]
      )
      failed.push(...rows)
    }
    for (const { id } of failed) await emitter.emit('message.failed', { id: String(id), status: 'failed', at })
    await announceChanges(changesOf(failed))
    return failed.length
  }

  /** The orders a phone has not accepted yet, oldest first (sent again when it reconnects). */
  async waitingOrdersOf(deviceId: number): Promise<WaitingOrder[]> {
    const rows = await db
      .from('messages')
      .where('device_id', String(deviceId))
      .where('status', 'queued')
      .whereNotNull('ordered_at')
      .orderBy('id', 'asc')
      .select('id', 'phone', 'body', 'sim_slot', 'ordered_at')
    return rows.map((row) => ({ messageId: row.id, phone: row.phone, text: row.body, simSlot: row.sim_slot ?? 0, orderedAt: new Date(row.ordered_at) }))
  }

  /**
   * Orders a phone never accepted go back to the queue (ordered up to `orderedUpTo` when
   * given): to any phone, or to wait for the one the send forced. Answers those requeued; the
   * messages:queued event goes out when `announce` is called.
   */
  async requeueWaitingOrdersOf(deviceId: number, orderedUpTo?: Date): Promise<{ requeued: WithdrawnOrder[]; announce(): Promise<void> }> {
    const query = db.from('messages').where('device_id', String(deviceId)).where('status', 'queued').whereNotNull('ordered_at')
    if (orderedUpTo) query.where('ordered_at', '<=', orderedUpTo.toISOString())
    const orders: Array<{ id: number; sim_slot: number | null; ordered_at: string }> = await query.select('id', 'sim_slot', 'ordered_at')
    // Guarded again, on the order as it was read: a report may have come in between the two
    // statements, or the message may have gone back to the queue and out to another phone.
    const requeued = new Set<number>()
    const changed: ChangedRow[] = []
    for (let start = 0; start < orders.length; start += CHUNK) {
      const chunk = orders.slice(start, start + CHUNK)
      const rows = await db.rawQuery(
        `WITH r(id, ordered_at) AS (VALUES ${chunk.map(() => '(?, ?)').join(', ')})
         UPDATE messages SET ordered_at = NULL, sim_slot = forced_sim_slot,
           device_id = CASE WHEN forced_device_id IS NULL THEN NULL ELSE device_id END
         FROM r
         WHERE messages.id = r.id AND messages.ordered_at = r.ordered_at AND messages.device_id = ? AND messages.status = 'queued'
         RETURNING ${CHANGED_COLUMNS}`,
        [...chunk.flatMap((order) => [order.id, order.ordered_at]), String(deviceId)]
      )
      for (const row of rows) requeued.add(row.id)
      changed.push(...rows)
    }
    return {
      requeued: orders
        .filter((order) => requeued.has(order.id))
        .map((order) => ({ messageId: order.id, deviceId, simSlot: order.sim_slot, orderedAt: order.ordered_at })),
      announce: async () => {
        if (requeued.size) await emitter.emit('messages:queued', { count: requeued.size })
        await announceChanges(changesOf(changed))
      },
    }
  }

  /**
   * Orders a phone took (dispatched) but will never report (it was unpaired): whether the SMS
   * left is unknown, so they fail rather than go twice.
   */
  async failTakenOrdersOf(deviceId: number, errorCode: string, at: Date): Promise<number> {
    const failed: ChangedRow[] = await db.rawQuery(
      `UPDATE messages SET status = 'failed', error_code = ?, failed_at = ?, ordered_at = NULL, updated_at = ?
       WHERE device_id = ? AND status = 'dispatched' RETURNING ${CHANGED_COLUMNS}`,
      [errorCode, at.toISOString(), at.toISOString(), String(deviceId)]
    )
    for (const { id } of failed) await emitter.emit('message.failed', { id: String(id), status: 'failed', at })
    await announceChanges(changesOf(failed))
    return failed.length
  }

  /**
   * Messages held by a SIM's minimum interval or per-minute limit are judged again (the limits
   * changed); a retry's wait after a failed attempt is not a hold and stays.
   */
  async releaseHolds(at: Date): Promise<number> {
    const released: ChangedRow[] = await db.rawQuery(
      `UPDATE messages SET hold_reason = NULL, held_until = NULL, updated_at = ?
       WHERE status = 'queued' AND hold_reason IS NOT NULL RETURNING ${CHANGED_COLUMNS}`,
      [at.toISOString()]
    )
    await announceChanges(changesOf(released))
    return released.length
  }

  /** Messages waiting for a quota go back to the queue (a new day, or a quota raised). */
  async releaseQuotaWaits(at: Date): Promise<number> {
    const released: ChangedRow[] = await db.rawQuery(
      `UPDATE messages SET status = 'queued', updated_at = ? WHERE status = 'pending_quota_exceeded' RETURNING ${CHANGED_COLUMNS}`,
      [at.toISOString()]
    )
    await announceChanges(changesOf(released))
    return released.length
  }

  /**
   * Records a batch of phone reports, in the order a phone reports them for one message:
   * acceptances and sends, then delivery receipts, then failures. Each is guarded by the
   * state it moves from and by the phone the message was ordered to, so a repeated or stray
   * report changes nothing. No transaction: each statement is atomic, and a batch cut in the
   * middle is reported again by the phone, when only the rest changes.
   */
  async recordReports(reports: PhoneReport[]): Promise<RecordedReports> {
    const announcements: Announcement[] = []
    const changes = new Map<number, MessageChange>()

    // Accepted and sent in one statement: per message, the furthest the phone has gone, as the
    // first report that said so (a repeated one changes nothing, as it would one by one). A
    // delivery receipt says the SMS was sent too, should its `sent` be late or lost. Reports
    // naming different hand-outs of a message are kept apart: only the current one matches.
    const taken = new Map<string, { report: PhoneReport; target: 'dispatched' | 'sent' }>()
    for (const report of reports) {
      const key = handOutKey(report)
      const known = taken.get(key)
      if ((report.kind === 'sent' || report.kind === 'delivered') && known?.target !== 'sent') taken.set(key, { report, target: 'sent' })
      else if (report.kind === 'accepted' && !known) taken.set(key, { report, target: 'dispatched' })
    }
    const sentBy = new Map<number, PhoneReport>()
    for (const { report } of taken.values()) sentBy.set(report.messageId, report)
    for (const row of await this.#applyReports(
      [...taken.values()].map(({ report, target }) => [report.messageId, String(report.deviceId), report.at.toISOString(), target, report.orderedAt?.toISOString() ?? null]),
      // One attempt is spent when the phone takes the order, whichever report says so first.
      `status = r.target, attempts = attempts + (CASE WHEN messages.status = 'queued' THEN 1 ELSE 0 END),
       sent_at = CASE WHEN r.target = 'sent' THEN r.at ELSE messages.sent_at END, updated_at = r.at`,
      `((messages.status = 'queued' AND messages.ordered_at IS NOT NULL) OR (r.target = 'sent' AND messages.status = 'dispatched'))`
    )) {
      changes.set(row.id, changesOf([row])[0])
      if (row.status !== 'sent') continue
      const report = sentBy.get(row.id)!
      announcements.push({ event: 'message.sent', data: { id: String(row.id), deviceId: String(report.deviceId), status: 'sent', at: report.at } })
    }

    const delivered = new Map<string, PhoneReport>()
    for (const report of reports) if (report.kind === 'delivered' && !delivered.has(handOutKey(report))) delivered.set(handOutKey(report), report)
    const deliveredBy = new Map<number, PhoneReport>()
    for (const report of delivered.values()) deliveredBy.set(report.messageId, report)
    for (const row of await this.#applyReports(
      [...delivered.values()].map((report) => [report.messageId, String(report.deviceId), report.at.toISOString(), 'delivered', report.orderedAt?.toISOString() ?? null]),
      `status = 'delivered', delivered_at = r.at, updated_at = r.at`,
      `messages.status IN ('sent', 'dispatched')`
    )) {
      changes.set(row.id, changesOf([row])[0])
      announcements.push({ event: 'message.delivered', data: { id: String(row.id), status: 'delivered', at: deliveredBy.get(row.id)!.at } })
    }

    const failures = reports.filter((report): report is Extract<PhoneReport, { kind: 'failed' }> => report.kind === 'failed')
    const { failedAttempts, retryAt, finalFailures, failedChanges } = await this.#failAttempts(failures)
    for (const change of failedChanges) changes.set(change.id, change)
    for (const failure of finalFailures) {
      announcements.push({ event: 'message.failed', data: { id: String(failure.messageId), status: 'failed', at: failure.at } })
    }
    return {
      failedAttempts,
      retryAt,
      announce: async () => {
        for (const { event, data } of announcements) await emitter.emit(event, data as never)
        await announceChanges([...changes.values()])
      },
    }
  }

  /**
   * One guarded multi-row update from rows (id, device_id, at, target, ordered_at); answers what
   * it changed. A row naming its hand-out (`ordered_at`) changes the message only while that is
   * its current one.
   */
  async #applyReports(rows: Array<[number, string, string, string, string | null]>, set: string, guard: string): Promise<Array<ChangedRow & { status: string }>> {
    const changed: Array<ChangedRow & { status: string }> = []
    for (let start = 0; start < rows.length; start += CHUNK) {
      const chunk = rows.slice(start, start + CHUNK)
      const updated = await db.rawQuery(
        `WITH r(id, device_id, at, target, ordered_at) AS (VALUES ${chunk.map(() => '(?, ?, ?, ?, ?)').join(', ')})
         UPDATE messages SET ${set}
         FROM r
         WHERE messages.id = r.id AND messages.device_id = r.device_id AND (r.ordered_at IS NULL OR messages.ordered_at = r.ordered_at) AND ${guard}
         RETURNING ${CHANGED_COLUMNS}`,
        chunk.flat()
      )
      changed.push(...updated)
    }
    return changed
  }

  /**
   * Failed attempts: queued again after a growing wait, or failed after the last attempt (or
   * at once when not retryable). One read and one guarded write for the whole batch, each
   * guarded by the state as read: a message that moved in between is left alone.
   */
  async #failAttempts(failures: Array<Extract<PhoneReport, { kind: 'failed' }>>) {
    const failedAttempts: RecordedReports['failedAttempts'] = []
    const finalFailures: Array<{ messageId: number; at: Date }> = []
    const failedChanges: MessageChange[] = []
    let retryAt: Date | null = null
    if (!failures.length) return { failedAttempts, retryAt, finalFailures, failedChanges }

    const ids = [...new Set(failures.map((report) => report.messageId))]
    const current = new Map<number, any>()
    for (let start = 0; start < ids.length; start += CHUNK) {
      const rows = await db
        .from('messages')
        .whereIn('id', ids.slice(start, start + CHUNK))
        .where((query) => query.where('status', 'dispatched').orWhere((queued) => queued.where('status', 'queued').whereNotNull('ordered_at')))
        .select('id', 'conversation_id', 'direction', 'status', 'attempts', 'device_id', 'forced_device_id', 'forced_sim_slot', 'sim_slot', 'ordered_at', 'campaign_id')
      for (const row of rows) current.set(row.id, row)
    }

    // Per message the first failure from the phone it was ordered to, as one by one.
    const changes: Array<{ report: (typeof failures)[number]; row: any; status: 'queued' | 'failed'; attempts: number; retryAt: Date | null }> = []
    const handled = new Set<number>()
    for (const report of failures) {
      const row = current.get(report.messageId)
      if (!row || handled.has(report.messageId) || row.device_id !== String(report.deviceId)) continue
      // About an earlier hand-out of the message: that attempt's outcome is already stored.
      if (report.orderedAt && row.ordered_at !== report.orderedAt.toISOString()) continue
      handled.add(report.messageId)
      const attempts = row.attempts + (row.status === 'queued' ? 1 : 0)
      const retry = report.retryable && attempts < report.maxAttempts
      const at = retry ? new Date(report.at.getTime() + RETRY_WAITS_MS[Math.min(attempts - 1, RETRY_WAITS_MS.length - 1)]) : null
      changes.push({ report, row, status: retry ? 'queued' : 'failed', attempts, retryAt: at })
    }

    const changed = new Set<number>()
    for (let start = 0; start < changes.length; start += CHUNK) {
      const chunk = changes.slice(start, start + CHUNK)
      const rows = await db.rawQuery(
        `WITH f(id, from_status, from_device_id, from_ordered_at, status, attempts, error_code, held_until, device_id, sim_slot, at)
           AS (VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')})
         UPDATE messages SET status = f.status, attempts = f.attempts, error_code = f.error_code, ordered_at = NULL,
           held_until = CASE WHEN f.status = 'queued' THEN f.held_until ELSE messages.held_until END,
           hold_reason = CASE WHEN f.status = 'queued' THEN NULL ELSE messages.hold_reason END,
           device_id = CASE WHEN f.status = 'queued' THEN f.device_id ELSE messages.device_id END,
           sim_slot = CASE WHEN f.status = 'queued' THEN f.sim_slot ELSE messages.sim_slot END,
           failed_at = CASE WHEN f.status = 'failed' THEN f.at ELSE messages.failed_at END,
           updated_at = f.at
         FROM f
         WHERE messages.id = f.id AND messages.status = f.from_status AND messages.device_id = f.from_device_id
           AND messages.ordered_at = f.from_ordered_at
         RETURNING messages.id`,
        chunk.flatMap(({ report, row, status, attempts, retryAt: retryDue }): any[] => [
          row.id,
          row.status,
          row.device_id,
          row.ordered_at,
          status,
          attempts,
          report.errorCode,
          retryDue?.toISOString() ?? null,
          row.forced_device_id === null ? null : String(row.forced_device_id),
          row.forced_sim_slot,
          report.at.toISOString(),
        ])
      )
      for (const { id } of rows) changed.add(id)
    }

    for (const change of changes) {
      if (!changed.has(change.row.id)) continue
      failedAttempts.push({
        messageId: change.row.id,
        deviceId: change.report.deviceId,
        simSlot: change.row.sim_slot,
        orderedAt: change.row.ordered_at,
        errorCode: change.report.errorCode,
      })
      failedChanges.push({
        id: change.row.id,
        conversationId: change.row.conversation_id,
        direction: change.row.direction,
        status: change.status,
        campaignId: change.row.campaign_id,
      })
      if (change.retryAt && (!retryAt || change.retryAt < retryAt)) retryAt = change.retryAt
      if (change.status === 'failed') finalFailures.push({ messageId: change.row.id, at: change.report.at })
    }
    return { failedAttempts, retryAt, finalFailures, failedChanges }
  }

  /**
   * Stores an SMS a phone received, in its number's conversation (created by the first message
   * either way): once per phone reference. Answers null for a repeated report.
   */
  async storeInbound(sms: InboundReport): Promise<{ id: number; conversationId: number } | null> {
    const exists = await db.from('messages').where('device_id', String(sms.deviceId)).where('inbound_ref', sms.ref).first()
    if (exists) return null
    const now = sms.at.toISOString()
    const { encoding, segments } = countSegments(sms.body)
    const stored = await transaction(async (trx) => {
      const conversation = (
        await recordConversationActivity(trx, [{ phone: sms.phone, direction: 'in', category: 'conversation', at: now }])
      ).get(sms.phone)!
      // An inbound SMS takes the category of the last message sent to the number, or conversation.
      const id = await insertReceived(trx, sms, conversation, { encoding, segments })
      return { id, conversationId: conversation.id }
    })
    await emitter.emit('message.received', { id: String(stored.id), conversationId: String(stored.conversationId), deviceId: String(sms.deviceId), at: sms.at })
    await announceChanges([{ id: stored.id, conversationId: stored.conversationId, direction: 'in', status: 'delivered' }])
    return stored
  }

  /** Failed messages go back to the queue with their attempts restarted; answers those requeued. */
  async retryFailed(messageIds: number[], at: Date): Promise<number[]> {
    const now = at.toISOString()
    const retried = await this.#move(messageIds, `status = 'failed'`, {
      status: 'queued',
      attempts: 0,
      error_code: null,
      failed_at: null,
      hold_reason: null,
      held_until: null,
      updated_at: now,
    })
    if (retried.length) await emitter.emit('messages:queued', { count: retried.length })
    return retried
  }

  /** Pauses messages not handed to a phone yet (a campaign paused); answers those paused. */
  async pause(messageIds: number[], at: Date): Promise<number[]> {
    return this.#move(messageIds, NOT_ORDERED, { status: 'paused', updated_at: at.toISOString() })
  }

  /** Paused messages go back to the queue (a campaign resumed); answers those resumed. */
  async resume(messageIds: number[], at: Date): Promise<number[]> {
    const resumed = await this.#move(messageIds, `status = 'paused'`, { status: 'queued', updated_at: at.toISOString() })
    if (resumed.length) await emitter.emit('messages:queued', { count: resumed.length })
    return resumed
  }

  /**
   * Cancels messages not handed to a phone yet (queued, waiting for a quota, or paused), with
   * the reason's code; an order already with a phone goes on. Answers those cancelled.
   */
  async cancel(messageIds: number[], errorCode: string, at: Date): Promise<number[]> {
    return this.#move(messageIds, WITHDRAWABLE, { status: 'cancelled', error_code: errorCode, updated_at: at.toISOString() })
  }

  /**
   * Cancels what still waits for a number (not handed to a phone yet, or paused) with the
   * reason's code, on the caller's client: a contact opting out withdraws its messages in the
   * transaction that changes the contact. `announce` (after the commit) tells the live stream.
   */
  async cancelWaitingTo(client: QueryClientContract, phone: string, errorCode: string, at: Date): Promise<{ cancelled: number; announce(): Promise<void> }> {
    const rows: ChangedRow[] = await client.rawQuery(
      `UPDATE messages SET status = 'cancelled', error_code = ?, updated_at = ?
       WHERE phone = ? AND direction = 'out' AND ${WITHDRAWABLE}
       RETURNING ${CHANGED_COLUMNS}`,
      [errorCode, at.toISOString(), phone]
    )
    return { cancelled: rows.length, announce: () => announceChanges(changesOf(rows)) }
  }

  /** Outbound messages among `messageIds` in the state `from` take `change`; answers their ids. */
  async #move(messageIds: number[], from: string, change: Record<string, string | number | null>): Promise<number[]> {
    const moved: ChangedRow[] = []
    const columns = Object.keys(change)
    for (let start = 0; start < messageIds.length; start += CHUNK * 2) {
      const chunk = messageIds.slice(start, start + CHUNK * 2)
      const rows = await db.rawQuery(
        `UPDATE messages SET ${columns.map((column) => `${column} = ?`).join(', ')}
         WHERE id IN (${chunk.map(() => '?').join(', ')}) AND direction = 'out' AND ${from}
         RETURNING ${CHANGED_COLUMNS}`,
        [...columns.map((column) => change[column]), ...chunk]
      )
      moved.push(...rows)
    }
    await announceChanges(changesOf(moved))
    return moved.map((row) => row.id).sort((a, b) => a - b)
  }
}
