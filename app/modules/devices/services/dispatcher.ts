import { inject } from '@adonisjs/core'
import db from '@adonisjs/lucid/services/db'
import { readConnection } from '#core/database/read_connection'
import emitter from '@adonisjs/core/services/emitter'
import { Clock } from '#core/time/clock'
import { SettingsStore, type ReadonlyDeep } from '#core/settings/settings_store'
import type { Settings } from '#core/settings/settings_catalogue'
import type { TextOptions } from '#modules/devices/models/device'
import { MessageLedger, type DueMessage } from '#modules/messages/public'
import { PhoneChannels } from '#modules/devices/channels/phone_channels'
import type { PhoneOrder } from '#modules/devices/channels/phone_channel'
import { dayIn, giveBackSimUse, keptRecentOrders, parseRecentOrders } from '#modules/devices/services/sim_usage'
import { applyTextOptions, effectiveTextOptions } from '#modules/devices/services/text_options'
import { OUTCOME_UNKNOWN } from '#modules/devices/services/report_queue'

/**
 * Messages looked at per pass; the pass runs again at once while more are due. A pass's own
 * statements (the phones and SIMs, the due messages, the orders, the SIMs' counts) are paid once
 * per pass: 1,000 rather than 200 carried 500-recipient sends 50 % faster end to end
 * (measured with bench/phones.js), still far under SQLite's bound-variable limit.
 */
const PASS_SIZE = 1000

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

type Verdict =
  | { kind: 'carrier'; carrier: Carrier }
  | { kind: 'wait' }
  | { kind: 'quota' }
  | { kind: 'hold'; reason: 'sim_cadence' | 'sim_rate'; until: number }
  | { kind: 'fail'; errorCode: string }

/**
 * Hands due messages (queued, scheduledAt and heldUntil passed, oldest first) to connected
 * phones, whatever their kind (through `PhoneChannels`, docs/phone-channels.md):
 * - deviceId/simSlot of the send force the phone and SIM and bypass routing;
 * - otherwise the first prefix rule matching the number picks the phone (when it is connected),
 *   and the routing mode orders the SIMs: round robin, priority order, or least used today;
 * - a SIM at its daily quota is skipped; when every SIM is, the message is
 *   pending_quota_exceeded until a quota frees (midnight in the platform time zone, or raised);
 * - the minimum interval and the per-minute limit per SIM hold a message (holdReason
 *   sim_cadence / sim_rate, heldUntil) without spending an attempt.
 * The order is stored before it goes to the phone, with the phone's text options applied.
 * What happens to the messages is recorded by the messages module (MessageLedger); the SIMs'
 * counts of the day and order times are this module's own (device_sims).
 */
@inject()
export class Dispatcher {
  constructor(
    private clock: Clock,
    private phones: PhoneChannels,
    private settings: SettingsStore,
    private cursor: RoutingCursor,
    private ledger: MessageLedger
  ) {}

  /** One pass; answers when the next one is due (null: when woken). */
  async pass(): Promise<Date | null> {
    const nowMs = this.clock.nowMs()
    const now = new Date(nowMs)
    const [sending, general] = [await this.settings.get('sending'), await this.settings.get('general')]
    const carriers = await this.#carriers(sending.timezone)

    // With no phone to take them, only messages forced to a phone can change (an unpaired one
    // fails them): the rest wait, and are not read over and over while the queue grows.
    const { due, nextDueAt } = await this.ledger.dueForDispatch(now, { limit: PASS_SIZE, forcedOnly: carriers.length === 0 })
    const orders: Array<{ message: DueMessage; carrier: Carrier }> = []
    const quotaWaits: number[] = []
    const holds: Array<{ messageId: number; reason: 'sim_cadence' | 'sim_rate'; until: Date }> = []
    const unsendable: Array<{ messageId: number; errorCode: string }> = []
    const forcedPhones = new Map<number, Set<number> | null>()
    for (const message of due) {
      const verdict = await this.#choose(message, carriers, sending, nowMs, forcedPhones)
      if (verdict.kind === 'carrier') {
        // Counted at once, so the next message of this pass sees the SIM's use.
        verdict.carrier.sentToday++
        verdict.carrier.recentOrders.push(nowMs)
        orders.push({ message, carrier: verdict.carrier })
      } else if (verdict.kind === 'quota') {
        quotaWaits.push(message.id)
      } else if (verdict.kind === 'hold') {
        holds.push({ messageId: message.id, reason: verdict.reason, until: new Date(verdict.until) })
      } else if (verdict.kind === 'fail') {
        unsendable.push({ messageId: message.id, errorCode: verdict.errorCode })
      }
    }
    // The orders first: the phones start sending while the rest is written.
    const handed = await this.#order(orders, general, sending, now)
    if (quotaWaits.length) await this.ledger.waitForQuota(quotaWaits, now)
    if (holds.length) await this.ledger.hold(holds, now)
    if (unsendable.length) await this.ledger.failUnsendable(unsendable, now)
    if (due.length === PASS_SIZE && handed > 0) return this.clock.now()
    // Held in this pass: due again when the hold ends (the query ran before the holds were written).
    const heldUntil = holds.length ? Math.min(...holds.map((hold) => hold.until.getTime())) : null
    const nextMs = [nextDueAt?.getTime() ?? null, heldUntil].filter((value): value is number => value !== null)
    return nextMs.length ? new Date(Math.min(...nextMs)) : null
  }

  /** Sends again the orders a phone has not accepted yet (after it reconnects). */
  async resendOrders(deviceId: number) {
    const orders = (await this.ledger.waitingOrdersOf(deviceId)).map((order) => ({ messageId: order.messageId, to: order.phone, text: order.text, simSlot: order.simSlot }))
    if (orders.length) this.phones.sendOrders(deviceId, orders)
  }

  /**
   * Orders a phone never accepted go back to the queue (it was away for 5 minutes, or was
   * unpaired): to another phone, or, forced to this one, to wait for it or fail without it.
   * Their SIMs' counts of the day are given back after the messages moved (a crash in between
   * leaves a count high, never low).
   */
  async requeueOrdersOf(deviceId: number, orderedUpTo?: Date): Promise<number> {
    const { requeued, announce } = await this.ledger.requeueWaitingOrdersOf(deviceId, orderedUpTo)
    if (!requeued.length) return 0
    // Never sent by this phone: its SIMs' counts of the day are given back.
    const { timezone } = await this.settings.get('sending')
    const unsent = requeued
      .filter((order) => order.simSlot !== null)
      .map((order) => ({ deviceId, slot: order.simSlot!, orderedAt: order.orderedAt }))
    if ((await giveBackSimUse(db.connection(), unsent, timezone)).length) await emitter.emit('devices:quota_changed', { deviceId })
    await announce()
    return requeued.length
  }

  /**
   * Orders an unpaired phone had taken (dispatched) but not reported: no report can come now,
   * and whether the SMS left is unknown, so they fail (OUTCOME_UNKNOWN) rather than go twice.
   * Their SIMs' counts stay, as for any outcome unknown.
   */
  async failTakenOrdersOf(deviceId: number): Promise<number> {
    return this.ledger.failTakenOrdersOf(deviceId, OUTCOME_UNKNOWN, this.clock.now())
  }

  /**
   * Messages held by a SIM's minimum interval or per-minute limit are judged again (the limits
   * changed); a retry's wait after a failed attempt is not a hold and stays.
   */
  async releaseHolds(): Promise<number> {
    return this.ledger.releaseHolds(this.clock.now())
  }

  /** Messages waiting for a quota go back to the queue (a new day, or a quota raised). */
  async releaseQuotaWaits(): Promise<number> {
    return this.ledger.releaseQuotaWaits(this.clock.now())
  }

  /** The SIMs of the enabled, connected phones, with today's use. */
  async #carriers(timezone: string): Promise<Carrier[]> {
    const connected = this.phones.connectedDevices()
    if (!connected.length) return []
    const today = dayIn(timezone, this.clock.now())
    // On the read connection, like the due messages: this pass's own writes come after it.
    const rows = await readConnection().rawQuery(
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

  /**
   * The SIM slots of a phone a send forced (null: not paired), read once per phone and pass
   * (`known`), connected or not.
   */
  async #forcedPhone(deviceId: number, known: Map<number, Set<number> | null>): Promise<Set<number> | null> {
    if (!known.has(deviceId)) {
      const rows =
        deviceId > 0
          ? await db.rawQuery('SELECT device_sims.slot FROM devices LEFT JOIN device_sims ON device_sims.device_id = devices.id WHERE devices.id = ?', [deviceId])
          : []
      known.set(deviceId, rows.length ? new Set(rows.filter((row: any) => row.slot !== null).map((row: any) => row.slot)) : null)
    }
    return known.get(deviceId)!
  }

  async #choose(
    message: DueMessage,
    carriers: Carrier[],
    sending: ReadonlyDeep<Settings['sending']>,
    nowMs: number,
    forcedPhones: Map<number, Set<number> | null>
  ): Promise<Verdict> {
    let candidates: Carrier[]
    if (message.forcedDeviceId !== null) {
      const slots = await this.#forcedPhone(message.forcedDeviceId, forcedPhones)
      if (!slots) return { kind: 'fail', errorCode: 'DEVICE_NOT_PAIRED' }
      // A phone's SIMs are those it paired with: a slot it does not have never appears.
      if (message.forcedSimSlot !== null && !slots.has(message.forcedSimSlot)) return { kind: 'fail', errorCode: 'SIM_NOT_FOUND' }
      // The forced phone is away: the message waits for it.
      candidates = carriers.filter(
        (carrier) => carrier.device.id === message.forcedDeviceId && (message.forcedSimSlot === null || carrier.slot === message.forcedSimSlot)
      )
    } else {
      const pool = message.forcedSimSlot === null ? carriers : carriers.filter((carrier) => carrier.slot === message.forcedSimSlot)
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
  #route(phone: string, carriers: Carrier[], sending: ReadonlyDeep<Settings['sending']>): Carrier[] {
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
  async #order(orders: Array<{ message: DueMessage; carrier: Carrier }>, general: ReadonlyDeep<Settings['general']>, sending: ReadonlyDeep<Settings['sending']>, now: Date): Promise<number> {
    if (!orders.length) return 0
    const prepared = orders.map(({ message, carrier }) => ({
      message,
      carrier,
      text: applyTextOptions(message.body, effectiveTextOptions(general, carrier.device.textOptions)),
    }))
    // The SIMs' use is counted first, from the order: a quota is never overshot while reports
    // are on the way, nor after a crash between the two statements (the count is then one pass
    // high, never low). No transaction: each statement waits its turn on the one connection.
    const nowMs = now.getTime()
    const today = dayIn(sending.timezone, now)
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
    const stored = await this.ledger.storeOrders(
      prepared.map((order) => ({ messageId: order.message.id, deviceId: order.carrier.device.id, simSlot: order.carrier.slot, text: order.text })),
      now
    )
    // A message that changed meanwhile (deleted, cancelled) was not ordered: its count goes back.
    const dropped = prepared.filter((order) => !stored.has(order.message.id))
    if (dropped.length) {
      const unsent = dropped.map((order) => ({ deviceId: order.carrier.device.id, slot: order.carrier.slot, orderedAt: now.toISOString() }))
      await giveBackSimUse(db.connection(), unsent, sending.timezone)
    }
    // Each phone's orders in the order they were chosen (oldest message first).
    const perPhone = new Map<number, PhoneOrder[]>()
    for (const order of prepared) {
      if (!stored.has(order.message.id)) continue
      const deviceId = order.carrier.device.id
      if (!perPhone.has(deviceId)) perPhone.set(deviceId, [])
      perPhone.get(deviceId)!.push({ messageId: order.message.id, to: order.message.phone, text: order.text, simSlot: order.carrier.slot })
    }
    for (const [deviceId, phoneOrders] of perPhone) this.phones.sendOrders(deviceId, phoneOrders)
    return stored.size
  }
}
