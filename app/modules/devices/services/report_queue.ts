import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { SettingsStore } from '#core/settings/settings_store'
import { giveBackSimUse } from '#modules/devices/services/sim_usage'

/** A phone's failure reason saying it does not know whether the SMS left. */
export const OUTCOME_UNKNOWN = 'OUTCOME_UNKNOWN'

/** Waits before attempts 2, 3, 4, ... of a message whose attempt failed. */
export const RETRY_WAITS_MS = [30_000, 120_000, 600_000, 1_800_000]

/** What a phone said about one of its orders (docs/device-protocol.md, frames up). */
export type OrderReport =
  | { kind: 'accepted' | 'sent' | 'delivered'; deviceId: number; messageId: number; at: Date }
  | { kind: 'failed'; deviceId: number; messageId: number; at: Date; errorCode: string; maxAttempts: number }

interface Waiting {
  report: OrderReport
  resolve: () => void
  reject: (error: unknown) => void
}

type Announcement =
  | { event: 'message.sent'; data: { id: string; deviceId: string; status: 'sent'; at: Date } }
  | { event: 'message.delivered'; data: { id: string; status: 'delivered'; at: Date } }
  | { event: 'message.failed'; data: { id: string; status: 'failed'; at: Date } }
  | { event: 'devices:retry_due'; data: { at: Date } }
  | { event: 'devices:quota_changed'; data: { deviceId: number } }

/** Rows per multi-row statement (4 bound values each). */
const CHUNK = 200
/** Reports stored by one transaction at most. */
const BATCH = 2000

/**
 * Group commit for the phones' reports about their orders, like the send queue for sends:
 * every report that arrives while a transaction is being written waits for the next one, so
 * ten phones reporting thousands of messages a second cost a few statements per batch rather
 * than one write each.
 *
 * Order: a batch applies acceptances and sends, then delivery receipts, then failures, which is
 * the order a phone reports them in for one message, and batches are written one after the
 * other in arrival order. Every update is guarded by the state it moves from, so a report
 * repeated after a reconnect changes nothing twice. Events are announced after the commit.
 * A container singleton.
 */
export class ReportQueue {
  #waiting: Waiting[] = []
  #writing = false

  constructor(private settings: () => Promise<SettingsStore>) {}

  /** Resolves once what the report says is stored (the phone's frame may then be acked). */
  add(report: OrderReport): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ report, resolve, reject })
      if (!this.#writing) {
        this.#writing = true
        setImmediate(() => void this.#drain())
      }
    })
  }

  async #drain() {
    while (this.#waiting.length) {
      const batch = this.#waiting.splice(0, BATCH)
      let announcements: Announcement[]
      try {
        announcements = await this.#apply(batch.map((waiting) => waiting.report))
      } catch (error) {
        // Not acked: the phone sends these reports again when it reconnects, and what was
        // stored already changes nothing the second time.
        for (const waiting of batch) waiting.reject(error)
        continue
      }
      for (const waiting of batch) waiting.resolve()
      for (const { event, data } of announcements) await emitter.emit(event, data as never)
    }
    this.#writing = false
  }

  /**
   * No transaction around the batch: each statement is atomic and guarded, and a batch cut in
   * the middle is not acked, so the phone repeats it and only the rest changes.
   */
  async #apply(reports: OrderReport[]): Promise<Announcement[]> {
    const announcements: Announcement[] = []

    // Accepted and sent in one statement: per message, the furthest the phone has gone, as the
    // first report that said so (a repeated one changes nothing, as it would one by one). A
    // delivery receipt says the SMS was sent too, should its `sent` be late or lost.
    const taken = new Map<number, { report: OrderReport; target: 'dispatched' | 'sent' }>()
    for (const report of reports) {
      const known = taken.get(report.messageId)
      if ((report.kind === 'sent' || report.kind === 'delivered') && known?.target !== 'sent') taken.set(report.messageId, { report, target: 'sent' })
      else if (report.kind === 'accepted' && !known) taken.set(report.messageId, { report, target: 'dispatched' })
    }
    for (const row of await this.#update(
      [...taken.values()].map(({ report, target }) => [report.messageId, String(report.deviceId), report.at.toISOString(), target]),
      // One attempt is spent when the phone takes the order, whichever report says so first.
      `status = r.target, attempts = attempts + (CASE WHEN messages.status = 'queued' THEN 1 ELSE 0 END),
       sent_at = CASE WHEN r.target = 'sent' THEN r.at ELSE messages.sent_at END, updated_at = r.at`,
      `((messages.status = 'queued' AND messages.ordered_at IS NOT NULL) OR (r.target = 'sent' AND messages.status = 'dispatched'))`
    )) {
      if (row.status !== 'sent') continue
      const { report } = taken.get(row.id)!
      announcements.push({ event: 'message.sent', data: { id: String(row.id), deviceId: String(report.deviceId), status: 'sent', at: report.at } })
    }

    const delivered = new Map<number, OrderReport>()
    for (const report of reports) if (report.kind === 'delivered' && !delivered.has(report.messageId)) delivered.set(report.messageId, report)
    for (const row of await this.#update(
      [...delivered.values()].map((report) => [report.messageId, String(report.deviceId), report.at.toISOString(), 'delivered']),
      `status = 'delivered', delivered_at = r.at, updated_at = r.at`,
      `messages.status IN ('sent', 'dispatched')`
    )) {
      announcements.push({ event: 'message.delivered', data: { id: String(row.id), status: 'delivered', at: delivered.get(row.id)!.at } })
    }

    const failures = reports.filter((report) => report.kind === 'failed')
    const { timezone } = failures.length ? await (await this.settings()).get('sending') : { timezone: 'UTC' }
    for (const report of failures) {
      for (const announcement of await db.transaction((trx) => this.#failed(report, timezone, trx))) {
        const repeated =
          announcement.event === 'devices:quota_changed' &&
          announcements.some((known) => known.event === 'devices:quota_changed' && known.data.deviceId === announcement.data.deviceId)
        if (!repeated) announcements.push(announcement)
      }
    }
    return announcements
  }

  /** One guarded multi-row update from rows (id, device_id, at, target); answers what it changed. */
  async #update(rows: Array<[number, string, string, string]>, set: string, guard: string): Promise<Array<{ id: number; status: string }>> {
    const changed: Array<{ id: number; status: string }> = []
    for (let start = 0; start < rows.length; start += CHUNK) {
      const chunk = rows.slice(start, start + CHUNK)
      const updated = await db.rawQuery(
        `WITH r(id, device_id, at, target) AS (VALUES ${chunk.map(() => '(?, ?, ?, ?)').join(', ')})
         UPDATE messages SET ${set}
         FROM r
         WHERE messages.id = r.id AND messages.device_id = r.device_id AND ${guard}
         RETURNING messages.id, messages.status`,
        chunk.flat()
      )
      changed.push(...updated)
    }
    return changed
  }

  /** An attempt failed: queued again after a growing wait, or failed after the last attempt. */
  async #failed(report: Extract<OrderReport, { kind: 'failed' }>, timezone: string, trx: TransactionClientContract): Promise<Announcement[]> {
    const message = await trx
      .from('messages')
      .where('id', report.messageId)
      .where('device_id', String(report.deviceId))
      .where((query) => query.where('status', 'dispatched').orWhere((queued) => queued.where('status', 'queued').whereNotNull('ordered_at')))
      .select('status', 'attempts', 'forced_device_id', 'forced_sim_slot', 'sim_slot', 'ordered_at')
      .first()
    if (!message) return []
    // The SMS did not leave: its SIM's count of the day is given back (not when the phone cannot
    // tell whether it left: the quota must not be overshot).
    const announcements: Announcement[] = []
    if (message.ordered_at && message.sim_slot !== null && report.errorCode !== OUTCOME_UNKNOWN) {
      const unsent = { deviceId: report.deviceId, slot: message.sim_slot, orderedAt: message.ordered_at }
      if (await giveBackSimUse(trx, [unsent], timezone)) announcements.push({ event: 'devices:quota_changed', data: { deviceId: report.deviceId } })
    }
    const attempts = message.attempts + (message.status === 'queued' ? 1 : 0)
    const now = report.at.getTime()
    // The phone cannot tell whether the SMS left (it stopped mid-send): another attempt could
    // send it twice, so the message fails now and the integrator decides (POST .../retry).
    if (attempts < report.maxAttempts && report.errorCode !== OUTCOME_UNKNOWN) {
      const retryAt = new Date(now + RETRY_WAITS_MS[Math.min(attempts - 1, RETRY_WAITS_MS.length - 1)])
      await trx.from('messages').where('id', report.messageId).where('status', message.status).update({
        status: 'queued',
        attempts,
        error_code: report.errorCode,
        ordered_at: null,
        held_until: retryAt.toISOString(),
        hold_reason: null,
        device_id: message.forced_device_id ?? null,
        sim_slot: message.forced_sim_slot ?? null,
        updated_at: report.at.toISOString(),
      })
      return [...announcements, { event: 'devices:retry_due', data: { at: retryAt } }]
    }
    await trx.from('messages').where('id', report.messageId).where('status', message.status).update({
      status: 'failed',
      attempts,
      error_code: report.errorCode,
      failed_at: report.at.toISOString(),
      ordered_at: null,
      updated_at: report.at.toISOString(),
    })
    return [...announcements, { event: 'message.failed', data: { id: String(report.messageId), status: 'failed', at: report.at } }]
  }
}

