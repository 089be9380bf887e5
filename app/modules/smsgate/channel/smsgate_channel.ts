import { PassThrough } from 'node:stream'
import type { Logger } from '@adonisjs/core/logger'
import type { Clock, Timer } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import type { LetGoReason, PhoneChannel, PhoneOrder, PhoneReports, Taken } from '#modules/devices/public'
import { appMessage, orderSteps, sseEvent, KEEPALIVE_MS, SSE_KEEPALIVE, type AppMessage, type AppEvent } from '#modules/smsgate/channel/app_protocol'

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
 * `PATCH /message`. When its last stream closes, the orders it never reported are forgotten
 * here: the gateway hands them again when it connects, or to another phone after 5 minutes.
 */
export class SmsgateChannel implements PhoneChannel {
  readonly kind = 'smsgate'
  readonly #streams = new Map<number, Set<Stream>>()
  /** Orders not yet reported by the phone, by device then message id, with when they were handed. */
  readonly #orders = new Map<number, Map<number, { order: PhoneOrder; handedAt: number }>>()
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
    this.#keepAlive(deviceId, stream)
    stream.out.once('close', () => this.#closed(deviceId, stream))
    if (first) this.#presenceReport(deviceId, (reports) => reports.connected(deviceId))
    return stream.out
  }

  sendOrders(deviceId: number, orders: PhoneOrder[]): boolean {
    if (!this.isConnected(deviceId)) return false
    let waiting = this.#orders.get(deviceId)
    if (!waiting) this.#orders.set(deviceId, (waiting = new Map()))
    const handedAt = this.clock.nowMs()
    for (const order of orders) waiting.set(order.messageId, { order, handedAt })
    this.#push(deviceId, 'MessageEnqueued')
    return true
  }

  /**
   * The device's orders it has not reported yet, as `GET /message` answers them: `lifo` newest
   * first (the app's default), `fifo` oldest first.
   */
  waitingMessages(deviceId: number, order: 'lifo' | 'fifo'): AppMessage[] {
    const waiting = [...(this.#orders.get(deviceId)?.values() ?? [])]
    waiting.sort((a, b) => a.handedAt - b.handedAt || a.order.messageId - b.order.messageId)
    if (order === 'lifo') waiting.reverse()
    return waiting.map(({ order: phoneOrder, handedAt }) => appMessage(phoneOrder, handedAt))
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
      if (!/^[1-9]\d{0,15}$/.test(report.id)) continue
      const messageId = Number(report.id)
      const steps = orderSteps(report.state, report.recipients.find((recipient) => recipient.error)?.error)
      if (steps.length) this.#orders.get(deviceId)?.delete(messageId)
      for (const step of steps) {
        let taken: Taken
        if (step.kind === 'failed') taken = await inlet.failed(deviceId, messageId, step.errorCode)
        else taken = await inlet[step.kind](deviceId, messageId)
        stored.push(taken.stored)
      }
    }
    await this.#track(Promise.all(stored))
  }

  async disconnect(deviceId: number, _reason: LetGoReason): Promise<void> {
    const streams = this.#streams.get(deviceId)
    if (!streams) return
    this.#streams.delete(deviceId)
    this.#orders.delete(deviceId)
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
  #push(deviceId: number, event: AppEvent) {
    for (const stream of this.#streams.get(deviceId) ?? []) stream.out.write(sseEvent(event))
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
    this.#streams.delete(deviceId)
    this.#orders.delete(deviceId)
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
