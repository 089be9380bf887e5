import { inject } from '@adonisjs/core'
import { Clock } from '#core/time/clock'
import { SettingsStore, type ReadonlyDeep } from '#core/settings/settings_store'
import type { Settings } from '#core/settings/settings_catalogue'
import { OUTCOME_UNKNOWN, PhoneFleet, type Carrier, type CarrierOrder } from '#modules/devices/public'
import { MessageLedger, type DueMessage, type Hold, type Unsendable } from '#modules/messages/services/message_ledger'
import { MessageStateStore } from '#modules/messages/stores/message_state_store'

/**
 * Messages looked at per pass; the pass runs again at once while more are due. A pass's own
 * statements (the phones and SIMs, the due messages, the orders, the SIMs' counts) are paid once
 * per pass, so a large pass carries bulk sends faster (bench/phones.js); 1,000 stays far under
 * SQLite's bound-variable limit.
 */
const PASS_SIZE = 1000

/** Where round robin continues (a container singleton). */
export class RoutingCursor {
  next = 0
}

type Verdict =
  | { kind: 'carrier'; carrier: Carrier }
  | { kind: 'wait' }
  | { kind: 'quota' }
  | { kind: 'hold'; reason: Hold['reason']; until: number }
  | { kind: 'fail'; errorCode: string }

/**
 * Hands due messages to connected phones of every kind (the devices module's `PhoneFleet`) by the
 * rules of docs/sending.md, How a message leaves: a forced phone and SIM, prefix rules, the
 * routing mode, quotas, holds. The order is stored before it goes to the phone. The due messages
 * are read from MessageStateStore and every change is written through MessageLedger; the fleet
 * counts what each SIM was handed on the SIMs' own rows.
 */
@inject()
export class Dispatcher {
  constructor(
    private clock: Clock,
    private fleet: PhoneFleet,
    private settings: SettingsStore,
    private cursor: RoutingCursor,
    private ledger: MessageLedger,
    private states: MessageStateStore
  ) {}

  /** One pass; answers when the next one is due (null: when woken). */
  async pass(): Promise<Date | null> {
    const nowMs = this.clock.nowMs()
    const now = new Date(nowMs)
    const sending = await this.settings.get('sending')
    const carriers = await this.fleet.carriers(now)

    // With no phone to take them, only messages forced to a phone can change (an unpaired one
    // fails them): the rest wait, and are not read over and over while the queue grows.
    const { due, nextDueAt } = await this.states.dueForDispatch(now, { limit: PASS_SIZE, forcedOnly: carriers.length === 0 })
    const orders: Array<{ message: DueMessage; carrier: Carrier }> = []
    const quotaWaits: number[] = []
    const holds: Hold[] = []
    const unsendable: Unsendable[] = []
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
    const handed = await this.fleet.handOut(
      orders.map(({ message, carrier }) => ({ carrier, messageId: message.id, to: message.phone, text: carrier.shapeText(message.body) })),
      now,
      (handedOut) => this.#storeOrders(handedOut, now)
    )
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
    this.fleet.resend(deviceId, await this.states.waitingOrdersOf(deviceId))
  }

  /**
   * Orders a phone never accepted go back to the queue (it was away for 5 minutes, or was
   * unpaired): to another phone, or, forced to this one, to wait for it or fail without it.
   * Their SIMs' counts of the day are given back after the messages moved (a crash in between
   * leaves a count high, never low). Answers the ids of the messages moved.
   */
  async requeueOrdersOf(deviceId: number, orderedUpTo?: Date): Promise<number[]> {
    const { requeued, announce } = await this.ledger.requeueWaitingOrdersOf(deviceId, orderedUpTo)
    if (!requeued.length) return []
    // Never sent by this phone: its SIMs' counts of the day are given back.
    const unsent = requeued
      .filter((order) => order.simSlot !== null)
      .map((order) => ({ deviceId, slot: order.simSlot!, orderedAt: order.orderedAt }))
    const givenBack = await this.fleet.giveBack(unsent)
    await givenBack.announce()
    await announce()
    return requeued.map((order) => order.messageId)
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
   * The SIM slots of a phone a send forced (null: not paired), read once per phone and pass
   * (`known`), connected or not.
   */
  async #forcedPhone(deviceId: number, known: Map<number, Set<number> | null>): Promise<Set<number> | null> {
    if (!known.has(deviceId)) known.set(deviceId, await this.fleet.simSlotsOf(deviceId))
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
        (carrier) => carrier.deviceId === message.forcedDeviceId && (message.forcedSimSlot === null || carrier.slot === message.forcedSimSlot)
      )
    } else {
      const pool = message.forcedSimSlot === null ? carriers : carriers.filter((carrier) => carrier.slot === message.forcedSimSlot)
      candidates = this.#route(message.phone, pool, sending)
    }
    if (!candidates.length) return { kind: 'wait' }

    let quotaBlocked = 0
    let hold: { reason: Hold['reason']; until: number } | null = null
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
      ? carriers.filter((carrier) => String(carrier.deviceId) === rule.deviceId && (rule.simSlot === null || rule.simSlot === undefined || carrier.slot === rule.simSlot))
      : []
    const pool = target.length ? target : carriers
    if (sending.routingMode === 'priority') {
      const rank = (carrier: Carrier) => {
        const index = sending.priority.findIndex((entry) => entry.deviceId === String(carrier.deviceId) && entry.simSlot === carrier.slot)
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

  /** The orders the fleet hands out, as this module records them (answers those stored). */
  #storeOrders(orders: CarrierOrder[], now: Date): Promise<Set<number>> {
    return this.ledger.storeOrders(
      orders.map((order) => ({ messageId: order.messageId, deviceId: order.carrier.deviceId, simSlot: order.carrier.slot, text: order.text })),
      now
    )
  }
}
