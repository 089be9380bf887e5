import { PassThrough } from 'node:stream'
import type { Logger } from '@adonisjs/core/logger'
import type { Clock, Timer } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { redactText } from '#core/logging/redaction'
import type { InboundSms, LetGoReason, PhoneChannel, PhoneOrder, PhoneReports, PhoneStatus, Taken } from '#modules/devices/public'
import {
  appMessage,
  appMessageId,
  orderSteps,
  parseAppMessageId,
  sseEvent,
  KEEPALIVE_MS,
  SSE_KEEPALIVE,
  type AppEvent,
} from '#modules/smsgate/channel/app_protocol'
import type { AppMessage } from '#modules/smsgate/schemas'

const WITHDRAWN_KEPT_MS = 24 * 3_600_000
const WITHDRAWN_KEPT = 1_000
/** `GET /message` lists this many orders at most, as the app's own server does. */
const LISTED_AT_MOST = 100

/** An order held for a device until the phone reports it; `fetched`: listed to it, and accepted. */
interface HeldOrder {
  order: PhoneOrder
  appId: string
  fetched: boolean
}

interface Stream {
  out: PassThrough
  timer: Timer | null
}

/** One reported message, as `PATCH /message` says it (validated). */
export interface MessageReport {
  id: string
  state: string
  recipients: Array<{ phoneNumber: string; state: string; error?: string }>
}

/**
 * The SMSGate Android app (docs/smsgate.md), a kind of phone plugged in from its own module
 * (docs/phone-channels.md). A device is connected while at least one of its event streams
 * (`GET /events`) is open: the app may hold two at once, and stays connected until the last
 * closes. Orders are kept in memory for the device and announced on its streams
 * (`MessageEnqueued`); the app fetches them with `GET /message` and reports them with
 * `PATCH /message`. An order listed to the app is accepted before the answer leaves: the app
 * keeps what it fetched and sends it whenever it can, so it is the phone's from then on and
 * never goes to another phone. Orders it has not fetched go to another phone when it has been
 * away 5 minutes, and are cancelled on it.
 */
export class SmsgateChannel implements PhoneChannel {
  readonly kind = 'smsgate'
  // Nothing of an order reaches the phone before `GET /message` lists it, which is its acceptance.
  readonly takesBackUnaccepted = true
  readonly #streams = new Map<number, Set<Stream>>()
  /** Orders not yet reported by the phone, by device then message id. */
  readonly #orders = new Map<number, Map<number, HeldOrder>>()
  /**
   * Orders taken back from a device before it reported them, by device then the id the app
   * knows them by, with when: `MessageCancelled` is pushed on each stream the device opens until
   * it reports the message, or for a day at most (the phone may never have fetched it).
   */
  readonly #withdrawn = new Map<number, Map<string, number>>()
  /** Each device's connected/disconnected reports, one after the other. */
  readonly #presence = new Map<number, Promise<unknown>>()
  readonly #inFlight = new Set<Promise<unknown>>()
  #reports: PhoneReports | null = null
  #closing = false

  constructor(
    private clock: Clock,
    private logger: Logger
  ) {}

  listen(reports: PhoneReports): void {
    this.#reports = reports
  }

  isConnected(deviceId: number): boolean {
    return (this.#streams.get(deviceId)?.size ?? 0) > 0
  }

  connectedDevices(): number[] {
    return [...this.#streams.keys()]
  }

  /** How many event streams of the device are open (the app may hold two). */
  openStreams(deviceId: number): number {
    return this.#streams.get(deviceId)?.size ?? 0
  }

  /**
   * A new event stream of the device: the body of the `GET /events` answer. The first one makes
   * the device connected; closing (by the phone or the gateway) runs `onClosed`.
   */
  open(deviceId: number): PassThrough {
    if (this.#closing || !this.#reports) throw new ApiError('SMSGATE_STOPPING', 'The gateway is stopping')
    const stream: Stream = { out: new PassThrough(), timer: null }
    let streams = this.#streams.get(deviceId)
    const first = !streams
    if (!streams) this.#streams.set(deviceId, (streams = new Set()))
    streams.add(stream)
    // The answer's headers leave with the first bytes: the app counts the stream open then.
    stream.out.write(':connected\n\n')
    // Before the app's first fetch: what was taken back while it was away is dropped on the phone.
    for (const appId of this.#stillWithdrawn(deviceId)) stream.out.write(sseEvent('MessageCancelled', { messageId: appId }))
    this.#keepAlive(deviceId, stream)
    stream.out.once('close', () => this.#closed(deviceId, stream))
    if (first) this.#presenceReport(deviceId, (reports) => reports.connected(deviceId))
    return stream.out
  }

  sendOrders(deviceId: number, orders: PhoneOrder[]): boolean {
    if (!this.isConnected(deviceId)) return false
    let held = this.#orders.get(deviceId)
    if (!held) this.#orders.set(deviceId, (held = new Map()))
    const withdrawn = this.#withdrawn.get(deviceId)
    for (const order of orders) {
      const appId = appMessageId(order)
      // The same hand-out again (the phone reconnected): already listed to it or not, as it was.
      if (held.get(order.messageId)?.appId !== appId) held.set(order.messageId, { order, appId, fetched: false })
      withdrawn?.delete(appId)
    }
    this.#push(deviceId, 'MessageEnqueued')
    return true
  }

  /**
   * `GET /message`: the device's orders it has not reported yet, in the app's format, `lifo`
   * newest first (the app's default) or `fifo` oldest first, 100 at most. Those listed for the
   * first time are reported accepted, and the answer waits until that is stored: from then on
   * the message is the phone's (docs/smsgate.md, Orders). An order taken back meanwhile is not
   * listed. Listed again until the phone reports it (an answer lost on the way costs nothing: the
   * app does not send an id it already holds twice).
   */
  async fetch(deviceId: number, order: 'lifo' | 'fifo'): Promise<AppMessage[]> {
    const held = this.#orders.get(deviceId)
    if (!held) return []
    const waiting = [...held.values()].sort((a, b) => a.order.orderedAt.getTime() - b.order.orderedAt.getTime() || a.order.messageId - b.order.messageId)
    if (order === 'lifo') waiting.reverse()
    const listed = waiting.slice(0, LISTED_AT_MOST)
    const accepting = listed.filter((entry) => !entry.fetched)
    const stored: Array<Promise<void>> = []
    for (const entry of accepting) {
      entry.fetched = true
      stored.push((await this.#reports!.accepted(deviceId, entry.order.messageId, entry.order.orderedAt)).stored)
    }
    try {
      await this.#track(Promise.all(stored))
    } catch (error) {
      // Not stored: not the phone's yet; the app fetches again.
      for (const entry of accepting) entry.fetched = false
      throw error
    }
    return listed.filter((entry) => held.get(entry.order.messageId) === entry).map((entry) => appMessage(entry.order))
  }

  /**
   * What the phone reports about its messages (`PATCH /message`), handed to the inlet in order;
   * resolves once all of it is stored. A message id that is not one of ours, or not this
   * device's, changes nothing (the order book checks the device).
   */
  async report(deviceId: number, reports: MessageReport[]): Promise<void> {
    const inlet = this.#reports!
    const stored: Array<Promise<void>> = []
    for (const report of reports) {
      const named = parseAppMessageId(report.id)
      if (!named) continue
      const { messageId, orderedAt } = named
      const withdrawn = this.#withdrawn.get(deviceId)
      // Still Pending on the phone: the cancel is still owed to it.
      if (report.state !== 'Pending' && withdrawn?.delete(report.id) && report.state === 'Cancelled') continue
      const reason = report.recipients.find((recipient) => recipient.error)?.error
      const steps = orderSteps(report.state, reason)
      const held = this.#orders.get(deviceId)
      // Reported: listed no more (a report about an earlier hand-out leaves the current one listed).
      if (steps.length && (held?.get(messageId)?.appId === report.id || !orderedAt)) held?.delete(messageId)
      for (const step of steps) {
        let taken: Taken
        if (step.kind === 'failed') {
          // The code is what the message keeps; the app's own words go to the log, numbers masked.
          this.logger.info({ deviceId, messageId, errorCode: step.errorCode, reason: redactText(reason ?? '').slice(0, 300) }, 'smsgate: the phone failed a message')
          taken = await inlet.failed(deviceId, messageId, step.errorCode, orderedAt)
        }
        else taken = await inlet[step.kind](deviceId, messageId, orderedAt)
        stored.push(taken.stored)
      }
    }
    await this.#track(Promise.all(stored))
  }

  /** The battery its `system:ping` carried; a ping proves it alive too. Resolves once stored. */
  async pinged(deviceId: number, status: PhoneStatus | null): Promise<void> {
    const taken = status ? await this.#reports!.status(deviceId, status) : await this.#reports!.heartbeat(deviceId)
    await this.#track(taken.stored)
  }

  /** An SMS the phone received (its `sms:received` webhook): resolves once it is stored. */
  async received(deviceId: number, sms: InboundSms): Promise<void> {
    const taken = await this.#reports!.inbound(deviceId, sms)
    await this.#track(taken.stored)
  }

  /**
   * The gateway took these orders back: before the phone accepted them (away 5 minutes, or their
   * message cancelled), or their message was deleted. They are listed no more, and
   * `MessageCancelled` is pushed on its streams now and on each it opens later, until it reports
   * them; the app cancels a message it still holds as Pending, and its `Cancelled` report of one
   * is not handed on (the gateway asked for it). An order this channel no longer holds (the
   * gateway restarted since) was never listed here, and needs no cancel.
   */
  withdraw(deviceId: number, messageIds: number[]): void {
    const held = this.#orders.get(deviceId)
    let withdrawn = this.#withdrawn.get(deviceId)
    if (!withdrawn) this.#withdrawn.set(deviceId, (withdrawn = new Map()))
    const now = this.clock.nowMs()
    for (const messageId of messageIds) {
      const entry = held?.get(messageId)
      if (!entry) continue
      held!.delete(messageId)
      withdrawn.delete(entry.appId)
      withdrawn.set(entry.appId, now)
      this.#push(deviceId, 'MessageCancelled', { messageId: entry.appId })
    }
    this.#stillWithdrawn(deviceId)
  }

  async disconnect(deviceId: number, reason: LetGoReason): Promise<void> {
    const held = this.#orders.get(deviceId)
    if (reason === 'unpaired') {
      this.#withdrawn.delete(deviceId)
      this.#orders.delete(deviceId)
    }
    const streams = this.#streams.get(deviceId)
    if (!streams) return
    this.#streams.delete(deviceId)
    // Unpaired: what it never fetched goes to another phone, and what it fetched is given up
    // as of unknown outcome; it is told to drop them all before its streams close (its token no
    // longer works, so it could not be told later), and sends only what it had already started.
    if (reason === 'unpaired') {
      for (const { appId } of held?.values() ?? []) {
        for (const stream of streams) stream.out.write(sseEvent('MessageCancelled', { messageId: appId }))
      }
    }
    for (const stream of streams) this.#end(stream)
    await this.#presenceReport(deviceId, (reports) => reports.disconnected(deviceId))
  }

  async settled(): Promise<void> {
    while (this.#inFlight.size) await Promise.all([...this.#inFlight])
  }

  async close(): Promise<void> {
    this.#closing = true
    await Promise.all([...this.#streams.keys()].map((deviceId) => this.disconnect(deviceId, 'silent')))
    await this.settled()
  }

  /** Writes an event on every open stream of the device. */
  #push(deviceId: number, event: AppEvent, data: Record<string, string> | null = null) {
    for (const stream of this.#streams.get(deviceId) ?? []) stream.out.write(sseEvent(event, data))
  }

  /** The device's withdrawn orders still to be cancelled on the phone: a day at most, the newest 1,000. */
  #stillWithdrawn(deviceId: number): string[] {
    const withdrawn = this.#withdrawn.get(deviceId)
    if (!withdrawn) return []
    const oldest = this.clock.nowMs() - WITHDRAWN_KEPT_MS
    // Kept in the order they were withdrawn: the first entries are the oldest.
    for (const [messageId, at] of withdrawn) {
      if (at >= oldest && withdrawn.size <= WITHDRAWN_KEPT) break
      withdrawn.delete(messageId)
    }
    if (!withdrawn.size) this.#withdrawn.delete(deviceId)
    return [...withdrawn.keys()]
  }

  /**
   * A `:keepalive` comment every 15 s on the gateway's clock, so proxies keep an idle stream
   * open. An open stream is the only sign of life an idle app gives: each keepalive written
   * counts as a heartbeat, so the device is not taken for silent after 5 minutes.
   */
  #keepAlive(deviceId: number, stream: Stream) {
    stream.timer = this.clock.setTimer(KEEPALIVE_MS, () => {
      stream.timer = null
      if (stream.out.destroyed || stream.out.writableEnded) return
      stream.out.write(SSE_KEEPALIVE)
      const beat = this.#track(this.#reports!.heartbeat(deviceId).then((taken) => taken.stored))
      this.clock.track(beat)
      this.#keepAlive(deviceId, stream)
    })
  }

  #closed(deviceId: number, stream: Stream) {
    stream.timer?.cancel()
    stream.timer = null
    const streams = this.#streams.get(deviceId)
    // Already let go of (`disconnect`), or another stream of the device is still open.
    if (!streams?.delete(stream) || streams.size) return
    // Its orders stay held: listed when it comes back, or withdrawn if it stays away.
    this.#streams.delete(deviceId)
    void this.#presenceReport(deviceId, (reports) => reports.disconnected(deviceId))
  }

  #end(stream: Stream) {
    stream.timer?.cancel()
    stream.timer = null
    stream.out.end()
  }

  /** Connected and disconnected of one device, in the order they happened. */
  #presenceReport(deviceId: number, report: (reports: PhoneReports) => Promise<void>): Promise<void> {
    const previous = this.#presence.get(deviceId) ?? Promise.resolve()
    const next = previous.then(() => report(this.#reports!)).catch((error) => this.logger.error({ err: error, deviceId }, 'smsgate: presence not stored'))
    this.#presence.set(deviceId, next)
    void next.finally(() => {
      if (this.#presence.get(deviceId) === next) this.#presence.delete(deviceId)
    })
    return this.#track(next)
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#inFlight.add(work)
    void work.finally(() => this.#inFlight.delete(work)).catch(() => {})
    return work
  }
}
