import { inject } from '@adonisjs/core'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import { Clock } from '#core/time/clock'
import { SettingsStore } from '#core/settings/settings_store'
import type { Settings } from '#core/settings/settings_catalogue'
import type { TextOptions } from '#modules/devices/models/device'
import { countSegments } from '#modules/messages/public'
import { DeviceHub } from '#modules/devices/services/device_hub'
import { dayIn, giveBackSimUse, keptRecentOrders, parseRecentOrders } from '#modules/devices/services/sim_usage'
import { applyTextOptions, effectiveTextOptions } from '#modules/devices/services/text_options'
import { affectedRows } from '#core/database/affected_rows'
import { OUTCOME_UNKNOWN } from '#modules/devices/services/report_queue'

/** Messages looked at per pass; the pass runs again at once while more are due. */
const PASS_SIZE = 200

/** Where round robin continues (a container singleton). */
export class RoutingCursor {
  next = 0
}

interface Carrier {
  device: { id: number; textOptions: TextOptions }
  slot: number
  dailyQuota: number | null
  /** Sent (handed out) today, in the platform time zone. */
  sentToday: number
  /** When the SIM was handed SMS lately (epoch ms, oldest first), this pass's orders included. */
  recentOrders: number[]
}

interface DueMessage {
  id: number
  phone: string
  body: string
  forced_device_id: number | null
  forced_sim_slot: number | null
}

type Verdict =
  | { kind: 'carrier'; carrier: Carrier }
  | { kind: 'wait' }
  | { kind: 'quota' }
  | { kind: 'hold'; reason: 'sim_cadence' | 'sim_rate'; until: number }
  | { kind: 'fail'; errorCode: string }

/**
 * Hands due messages (queued, scheduledAt and heldUntil passed, oldest first) to connected
 * phones (issue "Phones", The dispatcher):
 * - deviceId/simSlot of the send force the phone and SIM and bypass routing;
 * - otherwise the first prefix rule matching the number picks the phone (when it is connected),
 *   and the routing mode orders the SIMs: round robin, priority order, or least used today;
 * - a SIM at its daily quota is skipped; when every SIM is, the message is
 *   pending_quota_exceeded until a quota frees (midnight in the platform time zone, or raised);
 * - the minimum interval and the per-minute limit per SIM hold a message (holdReason
 *   sim_cadence / sim_rate, heldUntil) without spending an attempt.
 * The order is stored before it goes to the phone, with the phone's text options applied.
 */
@inject()
export class Dispatcher {
  constructor(
    private clock: Clock,
    private hub: DeviceHub,
    private settings: SettingsStore,
    private cursor: RoutingCursor
  ) {}

  /** One pass; answers when the next one is due (null: when woken). */
  async pass(): Promise<Date | null> {
    const nowMs = this.clock.nowMs()
    const now = new Date(nowMs).toISOString()
    const [sending, general] = [await this.settings.get('sending'), await this.settings.get('general')]
    const carriers = await this.#carriers(sending.timezone)

    // With no phone to take them, only messages forced to a phone can change (an unpaired one
    // fails them): the rest wait, and are not read over and over while the queue grows.
    const { due, next } = await this.#due(now, carriers.length === 0)
    const orders: Array<{ message: DueMessage; carrier: Carrier }> = []
    const holds: number[] = []
    for (const message of due) {
      const verdict = await this.#choose(message, carriers, sending, nowMs)
      if (verdict.kind === 'carrier') {
        // Counted at once, so the next message of this pass sees the SIM's use.
        verdict.carrier.sentToday++
        verdict.carrier.recentOrders.push(nowMs)
        orders.push({ message, carrier: verdict.carrier })
      } else if (verdict.kind === 'quota') {
        await db.from('messages').where('id', message.id).where('status', 'queued').update({ status: 'pending_quota_exceeded', hold_reason: null, held_until: null, updated_at: now })
      } else if (verdict.kind === 'hold') {
        holds.push(verdict.until)
        await db
          .from('messages')
          .where('id', message.id)
          .where('status', 'queued')
          .update({ hold_reason: verdict.reason, held_until: new Date(verdict.until).toISOString(), updated_at: now })
      } else if (verdict.kind === 'fail') {
        await this.#fail(message.id, verdict.errorCode, now)
      }
    }
    const handed = await this.#order(orders, general, sending, now)
    if (due.length === PASS_SIZE && handed > 0) return this.clock.now()
    // Held in this pass: due again when the hold ends (the query ran before the holds were written).
    const heldUntil = holds.length ? Math.min(...holds) : null
    const nextMs = [next?.getTime() ?? null, heldUntil].filter((value): value is number => value !== null)
    return nextMs.length ? new Date(Math.min(...nextMs)) : null
  }

  /**
   * The due messages, oldest first, and when the next message not due yet will be: one
   * statement, since every statement waits its turn on the one SQLite connection.
   */
  async #due(now: string, forcedOnly: boolean): Promise<{ due: DueMessage[]; next: Date | null }> {
    const rows = await db.rawQuery(
      `SELECT * FROM (
         SELECT id, phone, body, forced_device_id, forced_sim_slot, NULL AS next FROM messages
         WHERE status = 'queued' AND direction = 'out' AND ordered_at IS NULL
           AND (scheduled_at IS NULL OR scheduled_at <= ?) AND (held_until IS NULL OR held_until <= ?)
           ${forcedOnly ? 'AND forced_device_id IS NOT NULL' : ''}
         ORDER BY created_at ASC, id ASC
         LIMIT ${PASS_SIZE}
       )
       UNION ALL
       SELECT NULL, NULL, NULL, NULL, NULL, MIN(MAX(COALESCE(scheduled_at, ''), COALESCE(held_until, ''))) FROM messages
       WHERE status = 'queued' AND direction = 'out' AND ordered_at IS NULL AND (scheduled_at > ? OR held_until > ?)`,
      [now, now, now, now]
    )
    const last = rows.pop()
    return { due: rows, next: last?.next ? new Date(last.next) : null }
  }

  /** Sends again the orders a phone has not accepted yet (after it reconnects). */
  async resendOrders(deviceId: number) {
    const orders = await db
      .from('messages')
      .where('device_id', String(deviceId))
      .where('status', 'queued')
      .whereNotNull('ordered_at')
      .orderBy('id', 'asc')
      .select('id', 'phone', 'body', 'sim_slot')
    for (const order of orders) {
      this.hub.send(deviceId, { type: 'send', messageId: String(order.id), to: order.phone, text: order.body, simSlot: order.sim_slot ?? 0 })
    }
  }

  /**
   * Orders a phone never accepted go back to the queue (it was away for 5 minutes, or was
   * unpaired): to another phone, or, forced to this one, to wait for it or fail without it.
   */
  async requeueOrdersOf(deviceId: number, orderedUpTo?: Date): Promise<number> {
    const query = db.from('messages').where('device_id', String(deviceId)).where('status', 'queued').whereNotNull('ordered_at')
    if (orderedUpTo) query.where('ordered_at', '<=', orderedUpTo.toISOString())
    const orders: Array<{ id: number; sim_slot: number | null; ordered_at: string }> = await query.select('id', 'sim_slot', 'ordered_at')
    if (!orders.length) return 0
    // Guarded again, on the order as it was read: a report may have come in between the two
    // statements, or the message may have gone back to the queue and out to another phone.
    const requeued = new Set<number>()
    for (let start = 0; start < orders.length; start += 300) {
      const chunk = orders.slice(start, start + 300)
      const rows = await db.rawQuery(
        `WITH r(id, ordered_at) AS (VALUES ${chunk.map(() => '(?, ?)').join(', ')})
         UPDATE messages SET ordered_at = NULL, sim_slot = forced_sim_slot,
           device_id = CASE WHEN forced_device_id IS NULL THEN NULL ELSE device_id END
         FROM r
         WHERE messages.id = r.id AND messages.ordered_at = r.ordered_at AND messages.device_id = ? AND messages.status = 'queued'
         RETURNING messages.id`,
        [...chunk.flatMap((order) => [order.id, order.ordered_at]), String(deviceId)]
      )
      for (const row of rows) requeued.add(row.id)
    }
    // Never sent by this phone: its SIMs' counts of the day are given back.
    const { timezone } = await this.settings.get('sending')
    const unsent = orders
      .filter((order) => requeued.has(order.id) && order.sim_slot !== null)
      .map((order) => ({ deviceId, slot: order.sim_slot!, orderedAt: order.ordered_at }))
    if (await giveBackSimUse(db.connection(), unsent, timezone)) await emitter.emit('devices:quota_changed', { deviceId })
    if (requeued.size) await emitter.emit('messages:queued', { count: requeued.size })
    return requeued.size
  }

  /**
   * Orders an unpaired phone had taken (dispatched) but not reported: no report can come now,
   * and whether the SMS left is unknown, so they fail (OUTCOME_UNKNOWN) rather than go twice.
   */
  async failTakenOrdersOf(deviceId: number): Promise<number> {
    const now = this.clock.now()
    const failed: Array<{ id: number }> = await db.rawQuery(
      `UPDATE messages SET status = 'failed', error_code = ?, failed_at = ?, ordered_at = NULL, updated_at = ?
       WHERE device_id = ? AND status = 'dispatched' RETURNING id`,
      [OUTCOME_UNKNOWN, now.toISOString(), now.toISOString(), String(deviceId)]
    )
    for (const { id } of failed) await emitter.emit('message.failed', { id: String(id), status: 'failed', at: now })
    return failed.length
  }

  /**
   * Messages held by a SIM's minimum interval or per-minute limit are judged again (the limits
   * changed); a retry's wait after a failed attempt is not a hold and stays.
   */
  async releaseHolds(): Promise<number> {
    const released = await db
      .from('messages')
      .where('status', 'queued')
      .whereNotNull('hold_reason')
      .update({ hold_reason: null, held_until: null, updated_at: this.clock.now().toISOString() })
    return affectedRows(released)
  }

  /** Messages waiting for a quota go back to the queue (a new day, or a quota raised). */
  async releaseQuotaWaits(): Promise<number> {
    const released = await db
      .from('messages')
      .where('status', 'pending_quota_exceeded')
      .update({ status: 'queued', updated_at: this.clock.now().toISOString() })
    return affectedRows(released)
  }

  /** The SIMs of the enabled, connected phones, with today's use. */
  async #carriers(timezone: string): Promise<Carrier[]> {
    const connected = this.hub.connectedDevices()
    if (!connected.length) return []
    const today = dayIn(timezone, this.clock.now())
    const rows = await db.rawQuery(
      `SELECT devices.id, devices.text_options, device_sims.slot, device_sims.daily_quota, device_sims.sent_today, device_sims.sent_day,
         device_sims.recent_orders
       FROM devices JOIN device_sims ON device_sims.device_id = devices.id
       WHERE devices.enabled = 1 AND devices.id IN (${connected.map(() => '?').join(', ')})
       ORDER BY devices.id ASC, device_sims.slot ASC`,
      connected
    )
    const devices = new Map<number, Carrier['device']>()
    return rows.map((row: any) => {
      if (!devices.has(row.id)) devices.set(row.id, { id: row.id, textOptions: (row.text_options && JSON.parse(row.text_options)) || {} })
      return {
        device: devices.get(row.id)!,
        slot: row.slot,
        dailyQuota: row.daily_quota,
        sentToday: row.sent_day === today ? row.sent_today : 0,
        recentOrders: parseRecentOrders(row.recent_orders),
      }
    })
  }

  async #choose(message: DueMessage, carriers: Carrier[], sending: Settings['sending'], nowMs: number): Promise<Verdict> {
    let candidates: Carrier[]
    if (message.forced_device_id !== null) {
      const paired = message.forced_device_id > 0 && (await db.from('devices').where('id', message.forced_device_id).first())
      if (!paired) return { kind: 'fail', errorCode: 'DEVICE_NOT_PAIRED' }
      // A phone's SIMs are those it paired with: a slot it does not have never appears.
      if (message.forced_sim_slot !== null) {
        const sim = await db.from('device_sims').where('device_id', message.forced_device_id).where('slot', message.forced_sim_slot).first()
        if (!sim) return { kind: 'fail', errorCode: 'SIM_NOT_FOUND' }
      }
      // The forced phone is away: the message waits for it.
      candidates = carriers.filter(
        (carrier) => carrier.device.id === message.forced_device_id && (message.forced_sim_slot === null || carrier.slot === message.forced_sim_slot)
      )
    } else {
      const pool = message.forced_sim_slot === null ? carriers : carriers.filter((carrier) => carrier.slot === message.forced_sim_slot)
      candidates = this.#route(message.phone, pool, sending)
    }
    if (!candidates.length) return { kind: 'wait' }

    let quotaBlocked = 0
    let hold: { reason: 'sim_cadence' | 'sim_rate'; until: number } | null = null
    for (const carrier of candidates) {
      if (carrier.dailyQuota !== null && carrier.sentToday >= carrier.dailyQuota) {
        quotaBlocked++
        continue
      }
      const last = carrier.recentOrders.at(-1)
      const cadenceUntil = last === undefined ? 0 : last + sending.simMinIntervalSeconds * 1000
      if (sending.simMinIntervalSeconds > 0 && cadenceUntil > nowMs) {
        if (!hold || cadenceUntil < hold.until) hold = { reason: 'sim_cadence', until: cadenceUntil }
        continue
      }
      const recent = sending.simPerMinuteLimit === null ? [] : carrier.recentOrders.filter((time) => time > nowMs - 60_000)
      if (sending.simPerMinuteLimit !== null && recent.length >= sending.simPerMinuteLimit) {
        const rateUntil = recent[recent.length - sending.simPerMinuteLimit] + 60_000
        if (!hold || rateUntil < hold.until) hold = { reason: 'sim_rate', until: rateUntil }
        continue
      }
      return { kind: 'carrier', carrier }
    }
    if (hold) return { kind: 'hold', ...hold }
    return quotaBlocked === candidates.length ? { kind: 'quota' } : { kind: 'wait' }
  }

  /**
   * Prefix rules first (when their phone is connected), then the routing mode's order (among
   * the rule's SIMs when it names a phone but no slot).
   */
  #route(phone: string, carriers: Carrier[], sending: Settings['sending']): Carrier[] {
    const rule = sending.prefixRules.find((candidate) => phone.startsWith(candidate.prefix))
    const target = rule
      ? carriers.filter((carrier) => String(carrier.device.id) === rule.deviceId && (rule.simSlot === null || rule.simSlot === undefined || carrier.slot === rule.simSlot))
      : []
    const pool = target.length ? target : carriers
    if (sending.routingMode === 'priority') {
      const rank = (carrier: Carrier) => {
        const index = sending.priority.findIndex((entry) => entry.deviceId === String(carrier.device.id) && entry.simSlot === carrier.slot)
        return index === -1 ? Number.MAX_SAFE_INTEGER : index
      }
      return [...pool].sort((a, b) => rank(a) - rank(b))
    }
    if (sending.routingMode === 'least_used') return [...pool].sort((a, b) => a.sentToday - b.sentToday)
    if (!pool.length) return pool
    const start = this.cursor.next % pool.length
    this.cursor.next = (this.cursor.next + 1) % 1_000_000
    return [...pool.slice(start), ...pool.slice(0, start)]
  }

  /**
   * Stores a pass's orders in one statement (after one for the SIMs' counts of the day and
   * order times), then sends them to the phones: a stored order is never lost, a sent one
   * always stored.
   */
  async #order(orders: Array<{ message: DueMessage; carrier: Carrier }>, general: Settings['general'], sending: Settings['sending'], now: string): Promise<number> {
    if (!orders.length) return 0
    const prepared = orders.map(({ message, carrier }) => {
      const text = applyTextOptions(message.body, effectiveTextOptions(general, carrier.device.textOptions))
      return { message, carrier, text, ...countSegments(text) }
    })
    // The SIMs' use is counted first, from the order: a quota is never overshot while reports
    // are on the way, nor after a crash between the two statements (the count is then one pass
    // high, never low). No transaction: each statement waits its turn on the one connection.
    const nowMs = Date.parse(now)
    const today = dayIn(sending.timezone, new Date(nowMs))
    const perSim = new Map<Carrier, number>()
    for (const { carrier } of prepared) perSim.set(carrier, (perSim.get(carrier) ?? 0) + 1)
    const sims = [...perSim]
    for (let start = 0; start < sims.length; start += 100) {
      const chunk = sims.slice(start, start + 100)
      await db.rawQuery(
        `WITH used(device_id, slot, count, recent_orders) AS (VALUES ${chunk.map(() => '(?, ?, ?, ?)').join(', ')})
         UPDATE device_sims SET sent_today = CASE WHEN sent_day = ? THEN sent_today + used.count ELSE used.count END, sent_day = ?,
           recent_orders = used.recent_orders
         FROM used
         WHERE device_sims.device_id = used.device_id AND device_sims.slot = used.slot`,
        [
          ...chunk.flatMap(([carrier, count]) => [
            carrier.device.id,
            carrier.slot,
            count,
            JSON.stringify(keptRecentOrders(carrier.recentOrders, nowMs, sending.simPerMinuteLimit)),
          ]),
          today,
          today,
        ]
      )
    }
    const stored = new Set<number>()
    for (let start = 0; start < prepared.length; start += 100) {
      const chunk = prepared.slice(start, start + 100)
      const rows = await db.rawQuery(
        `WITH chosen(id, device_id, sim_slot, body, encoding, segments) AS (VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')})
         UPDATE messages SET ordered_at = ?, device_id = chosen.device_id, sim_slot = chosen.sim_slot, body = chosen.body,
           encoding = chosen.encoding, segments = chosen.segments, hold_reason = NULL, held_until = NULL, updated_at = ?
         FROM chosen
         WHERE messages.id = chosen.id AND messages.status = 'queued' AND messages.ordered_at IS NULL
         RETURNING messages.id`,
        [
          ...chunk.flatMap((order): any[] => [order.message.id, String(order.carrier.device.id), order.carrier.slot, order.text, order.encoding, order.segments]),
          now,
          now,
        ]
      )
      for (const row of rows) stored.add(row.id)
    }
    // A message that changed meanwhile (deleted, cancelled) was not ordered: its count goes back.
    const dropped = prepared.filter((order) => !stored.has(order.message.id))
    if (dropped.length) {
      const unsent = dropped.map((order) => ({ deviceId: order.carrier.device.id, slot: order.carrier.slot, orderedAt: now }))
      await giveBackSimUse(db.connection(), unsent, sending.timezone)
    }
    for (const order of prepared) {
      if (!stored.has(order.message.id)) continue
      this.hub.send(order.carrier.device.id, { type: 'send', messageId: String(order.message.id), to: order.message.phone, text: order.text, simSlot: order.carrier.slot })
    }
    return stored.size
  }

  async #fail(messageId: number, errorCode: string, now: string) {
    const updated = await db
      .from('messages')
      .where('id', messageId)
      .where('status', 'queued')
      .update({ status: 'failed', error_code: errorCode, failed_at: now, updated_at: now })
    if (affectedRows(updated)) {
      await emitter.emit('message.failed', { id: String(messageId), status: 'failed', at: this.clock.now() })
    }
  }

}
