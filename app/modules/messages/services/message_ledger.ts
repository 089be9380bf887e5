import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import emitter from '@adonisjs/core/services/emitter'
import { countSegments } from '#core/sms/segment_counter'
import { recordConversationActivity } from '#modules/conversations/public'
import { announceChanges, announceQueued, type MessageChange } from '#modules/messages/services/message_changes'
import { transaction } from '#core/database/transaction'
import type { InboundReport, PhoneFleet } from '#modules/devices/public'
import { insertReceived } from '#modules/messages/stores/message_inserts'
import type { MessageStore } from '#modules/messages/stores/message_store'
import type { MessageStateStore, FailedAttempt, FailingOrder, Hold, Order, TakenBackOrder, Unsendable } from '#modules/messages/stores/message_state_store'

export type { DueMessage, Hold, Order, Unsendable } from '#modules/messages/stores/message_state_store'

/** Waits before attempts 2, 3, 4, ... of a message whose attempt failed. */
export const RETRY_WAITS_MS = [30_000, 120_000, 600_000, 1_800_000]

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

/**
 * The one writer of a message's state after it is queued (docs/modules.md, rule 3): every change
 * the dispatcher, the phones' reports, unpairing, settings or a campaign decide is written here
 * by MessageStateStore's guarded statements, batch by batch, and the public message events go
 * out after the write. A change another module must match (a SIM's day count given back) is
 * answered, and the caller writes its own table after this one.
 */
export class MessageLedger {
  constructor(
    private states: MessageStateStore,
    private messages: MessageStore,
    private fleet: PhoneFleet
  ) {}

  /**
   * Stores a dispatch pass's orders (the text as it leaves, its encoding and segments); answers
   * the messages stored. A message that changed since it was read (cancelled, deleted, ordered)
   * is not.
   */
  async storeOrders(orders: Order[], at: Date): Promise<Set<number>> {
    const changed = await this.states.storeOrders(
      orders.map((order) => ({ ...order, ...countSegments(order.text) })),
      at
    )
    await announceChanges(changed)
    return new Set(changed.map((change) => change.id))
  }

  /** Queued messages every SIM's daily quota refuses wait for a quota (pending_quota_exceeded). */
  async waitForQuota(messageIds: number[], at: Date): Promise<number> {
    return this.#announced(await this.states.waitForQuota(messageIds, at))
  }

  /** Queued messages held back by a SIM's minimum interval or per-minute limit, no attempt spent. */
  async hold(holds: Hold[], at: Date): Promise<number> {
    return this.#announced(await this.states.hold(holds, at))
  }

  /** Queued messages that cannot be sent at all (their forced phone or SIM does not exist) fail. */
  async failUnsendable(failures: Unsendable[], at: Date): Promise<number> {
    return this.#failed(await this.states.failUnsendable(failures, at), at)
  }

  /**
   * Orders a phone never accepted go back to the queue (ordered up to `orderedUpTo` when
   * given): to any phone, or to wait for the one the send forced. Answers those requeued; the
   * messages:queued event goes out when `announce` is called.
   */
  async requeueWaitingOrdersOf(deviceId: number, orderedUpTo?: Date): Promise<{ requeued: WithdrawnOrder[]; announce(): Promise<void> }> {
    const orders = await this.states.unacceptedOrdersOf(deviceId, orderedUpTo)
    const changed = await this.states.requeue(deviceId, orders)
    const requeued = new Set(changed.map((change) => change.id))
    return {
      requeued: orders
        .filter((order) => requeued.has(order.id))
        .map((order) => ({ messageId: order.id, deviceId, simSlot: order.sim_slot, orderedAt: order.ordered_at })),
      announce: () => announceQueued(changed),
    }
  }

  /**
   * Orders a phone took (dispatched) but will never report (it was unpaired): whether the SMS
   * left is unknown, so they fail rather than go twice.
   */
  async failTakenOrdersOf(deviceId: number, errorCode: string, at: Date): Promise<number> {
    return this.#failed(await this.states.failTakenOrdersOf(deviceId, errorCode, at), at)
  }

  /**
   * Messages held by a SIM's minimum interval or per-minute limit are judged again (the limits
   * changed); a retry's wait after a failed attempt is not a hold and stays.
   */
  async releaseHolds(at: Date): Promise<number> {
    return this.#announced(await this.states.releaseHolds(at))
  }

  /** Messages waiting for a quota go back to the queue (a new day, or a quota raised). */
  async releaseQuotaWaits(at: Date): Promise<number> {
    return this.#announced(await this.states.releaseQuotaWaits(at))
  }

  /**
   * Records a batch of phone reports, in the order a phone reports them for one message:
   * acceptances and sends, then delivery receipts, then failures. Each is guarded by the
   * state it moves from and by the phone the message was ordered to, so a repeated or stray
   * report changes nothing. No transaction: each statement is atomic, and a batch cut in the
   * middle is reported again by the phone, when only the rest changes.
   */
  async recordReports(reports: PhoneReport[]): Promise<RecordedReports> {
    const announcements: Array<() => Promise<void>> = []
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
    const delivered = new Map<string, PhoneReport>()
    for (const report of reports) if (report.kind === 'delivered' && !delivered.has(handOutKey(report))) delivered.set(handOutKey(report), report)
    const deliveredBy = new Map<number, PhoneReport>()
    for (const report of delivered.values()) deliveredBy.set(report.messageId, report)

    // A receipt in the same batch as its order's acceptance or send goes in the same row write:
    // the message is written once, sent then delivered, as the two statements would leave it.
    const sentBy = new Map<number, PhoneReport>()
    for (const { report } of taken.values()) sentBy.set(report.messageId, report)
    const takenChanges = [...taken].map(([key, { report, target }]) => {
      const receipt = delivered.get(key)
      return receipt ? { ...report, target: 'delivered' as const, deliveredAt: receipt.at } : { ...report, target }
    })
    const deliveredAlready = new Set<number>()
    for (const change of await this.states.recordTaken(takenChanges)) {
      changes.set(change.id, change)
      if (change.status === 'delivered') deliveredAlready.add(change.id)
      else if (change.status !== 'sent') continue
      const report = sentBy.get(change.id)!
      announcements.push(() => emitter.emit('message.sent', { id: String(change.id), deviceId: String(report.deviceId), status: 'sent', at: report.at }))
    }

    const receipts = [...delivered.values()].filter((report) => !deliveredAlready.has(report.messageId))
    const deliveredChanges = [...deliveredAlready].map((id) => changes.get(id)!)
    deliveredChanges.push(...(await this.states.recordDelivered(receipts.map((report) => ({ ...report, target: 'delivered' as const })))))
    for (const change of deliveredChanges) {
      changes.set(change.id, change)
      const { at } = deliveredBy.get(change.id)!
      announcements.push(() => emitter.emit('message.delivered', { id: String(change.id), status: 'delivered', at }))
    }

    const failures = reports.filter((report): report is Extract<PhoneReport, { kind: 'failed' }> => report.kind === 'failed')
    const { failedAttempts, retryAt } = await this.#failAttempts(failures, changes, announcements)
    return {
      failedAttempts,
      retryAt,
      announce: async () => {
        for (const announcement of announcements) await announcement()
        await announceChanges([...changes.values()])
      },
    }
  }

  /**
   * Failed attempts: queued again after a growing wait, or failed after the last attempt (or
   * at once when not retryable). One read and one guarded write for the whole batch, each
   * guarded by the state as read: a message that moved in between is left alone. What changed
   * joins the batch's `changes`, and a message failed for good its `announcements`.
   */
  async #failAttempts(
    failures: Array<Extract<PhoneReport, { kind: 'failed' }>>,
    changes: Map<number, MessageChange>,
    announcements: Array<() => Promise<void>>
  ) {
    const failedAttempts: RecordedReports['failedAttempts'] = []
    let retryAt: Date | null = null
    if (!failures.length) return { failedAttempts, retryAt }

    const current = new Map<number, FailingOrder>()
    for (const order of await this.states.failingOrders([...new Set(failures.map((report) => report.messageId))])) current.set(order.id, order)

    // Per message the first failure from the phone it was ordered to, as one by one.
    const decided: Array<FailedAttempt & { report: (typeof failures)[number] }> = []
    const handled = new Set<number>()
    for (const report of failures) {
      const order = current.get(report.messageId)
      if (!order || handled.has(report.messageId) || order.device_id !== String(report.deviceId)) continue
      // About an earlier hand-out of the message: that attempt's outcome is already stored.
      if (report.orderedAt && order.ordered_at !== report.orderedAt.toISOString()) continue
      handled.add(report.messageId)
      const attempts = order.attempts + (order.status === 'queued' ? 1 : 0)
      // Already sent: the carrier says it will never arrive. Another attempt would send the SMS
      // a second time, so the message fails as it is.
      const retry = order.status !== 'sent' && report.retryable && attempts < report.maxAttempts
      const due = retry ? new Date(report.at.getTime() + RETRY_WAITS_MS[Math.min(attempts - 1, RETRY_WAITS_MS.length - 1)]) : null
      decided.push({ report, order, status: retry ? 'queued' : 'failed', attempts, errorCode: report.errorCode, retryAt: due, at: report.at })
    }

    const changed = await this.states.failAttempts(decided)
    for (const change of decided) {
      if (!changed.has(change.order.id)) continue
      const { order, status, errorCode, at } = change
      // An SMS that left keeps its SIM's count of the day.
      if (order.status !== 'sent') failedAttempts.push({ messageId: order.id, deviceId: change.report.deviceId, simSlot: order.sim_slot, orderedAt: order.ordered_at, errorCode })
      changes.set(order.id, { id: order.id, conversationId: order.conversation_id, direction: order.direction, status, campaignId: order.campaign_id })
      if (change.retryAt && (!retryAt || change.retryAt < retryAt)) retryAt = change.retryAt
      if (status === 'failed') announcements.push(() => emitter.emit('message.failed', { id: String(order.id), status: 'failed', at }))
    }
    return { failedAttempts, retryAt }
  }

  /**
   * Stores an SMS a phone received, in its number's conversation (created by the first message
   * either way): once per phone reference. Answers null for a repeated report.
   */
  async storeInbound(sms: InboundReport): Promise<{ id: number; conversationId: number } | null> {
    if (await this.messages.hasInbound(sms.deviceId, sms.ref)) return null
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
    const retried = await this.#moved(await this.states.retryFailed(messageIds, at))
    if (retried.length) await emitter.emit('messages:queued', { count: retried.length })
    return retried
  }

  /** Pauses messages not handed to a phone yet (a campaign paused); answers those paused. */
  async pause(messageIds: number[], at: Date): Promise<number[]> {
    return this.#moved(await this.states.pause(messageIds, at))
  }

  /** Paused messages go back to the queue (a campaign resumed); answers those resumed. */
  async resume(messageIds: number[], at: Date): Promise<number[]> {
    const resumed = await this.#moved(await this.states.resume(messageIds, at))
    if (resumed.length) await emitter.emit('messages:queued', { count: resumed.length })
    return resumed
  }

  /**
   * Cancels messages not handed to a phone yet (queued, waiting for a quota, or paused), with
   * the reason's code, and the orders their phone has not accepted where its kind can take them
   * back (`PhoneFleet.phonesTakingBackUnaccepted`); another order already with a phone goes on.
   * Answers those cancelled.
   */
  async cancel(messageIds: number[], errorCode: string, at: Date): Promise<number[]> {
    const takenBack: TakenBackOrder[] = []
    const phones = await this.fleet.phonesTakingBackUnaccepted()
    const changed = await this.states.cancel(messageIds, errorCode, at, phones, (orders) => {
      this.#tellPhones(orders)
      takenBack.push(...orders)
    })
    await this.#giveBackCounts(takenBack)
    return this.#moved(changed)
  }

  /**
   * Cancels what still waits for these numbers (not handed to a phone yet, or paused, and the
   * orders taken back as `cancel` does) with the reason's code, on the caller's client: contacts
   * opting out, one or a thousand, withdraw their messages in the transaction that changes them,
   * with one read of the phones and one statement per chunk of numbers. Call `announce` as soon as
   * that commits: it tells the phones first, then the live stream, once for all the numbers.
   */
  async cancelWaitingTo(client: QueryClientContract, numbers: string[], errorCode: string, at: Date): Promise<{ cancelled: number; announce(): Promise<void> }> {
    if (!numbers.length) return { cancelled: 0, announce: async () => {} }
    const takenBack: TakenBackOrder[] = []
    const phones = await this.fleet.phonesTakingBackUnaccepted(client)
    const changed = await this.states.cancelWaitingTo(client, numbers, errorCode, at, phones, (orders) => takenBack.push(...orders))
    return {
      cancelled: changed.length,
      announce: async () => {
        this.#tellPhones(takenBack)
        await this.#giveBackCounts(takenBack)
        await announceChanges(changed)
      },
    }
  }

  /**
   * Orders a cancel took back: their phones are told as soon as the cancel is written, before
   * anything else is awaited. A phone's fetch racing the cancel lists an order only once its
   * acceptance is stored, which waits behind the cancel's statement (one writer), so the channel
   * has dropped the order by then.
   */
  #tellPhones(orders: TakenBackOrder[]): void {
    const perPhone = new Map<number, number[]>()
    for (const order of orders) {
      if (!perPhone.has(order.deviceId)) perPhone.set(order.deviceId, [])
      perPhone.get(order.deviceId)!.push(order.messageId)
    }
    for (const [deviceId, messageIds] of perPhone) this.fleet.withdraw(deviceId, messageIds)
  }

  /** Their SMS never left: their SIMs' counts of the day are given back (a crash before leaves a count high, never low). */
  async #giveBackCounts(orders: TakenBackOrder[]): Promise<void> {
    if (!orders.length) return
    const unsent = orders.flatMap((order) => (order.simSlot === null ? [] : [{ deviceId: order.deviceId, slot: order.simSlot, orderedAt: order.orderedAt }]))
    await (await this.fleet.giveBack(unsent)).announce()
  }

  /** Announces a batch's changes; answers how many there were. */
  async #announced(changed: MessageChange[]): Promise<number> {
    await announceChanges(changed)
    return changed.length
  }

  /** Messages that failed for good: message.failed for each, then the batch announced. */
  async #failed(failed: MessageChange[], at: Date): Promise<number> {
    for (const { id } of failed) await emitter.emit('message.failed', { id: String(id), status: 'failed', at })
    return this.#announced(failed)
  }

  /** Announces the messages a batch operation moved; answers their ids in order. */
  async #moved(moved: MessageChange[]): Promise<number[]> {
    await announceChanges(moved)
    return moved.map((change) => change.id).sort((a, b) => a - b)
  }
}
