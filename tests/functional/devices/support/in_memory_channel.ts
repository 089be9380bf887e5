import type { LetGoReason, PhoneChannel, PhoneOrder } from '#modules/devices/channels/phone_channel'
import type { InboundSms, PhoneReports, Taken } from '#modules/devices/channels/phone_reports'

/** What the in-memory phone answers to an order. */
export type Answer = { kind: 'deliver' } | { kind: 'send' } | { kind: 'accept' } | { kind: 'fail'; errorCode: string } | { kind: 'silence' }

/**
 * A second kind of phone, written against the contract alone (docs/phone-channels.md): its
 * "phones" live in memory, take orders at once and answer through the gateway's inlet as a
 * real channel would (accepted, then sent, then delivered; or failed). It proves that a kind of
 * phone plugs in with one `PhoneChannels.register` and goes through routing, quotas and reports
 * like the agent.
 */
export class InMemoryChannel implements PhoneChannel {
  readonly kind = 'memory'
  readonly takesBackUnaccepted = false
  readonly orders: Array<PhoneOrder & { deviceId: number }> = []
  readonly letGo: Array<{ deviceId: number; reason: LetGoReason }> = []
  answer: Answer = { kind: 'deliver' }
  readonly #connected = new Set<number>()
  readonly #inFlight = new Set<Promise<unknown>>()
  #reports: PhoneReports | null = null

  listen(reports: PhoneReports): void {
    this.#reports = reports
  }

  /** A phone of this kind comes online (as an SSE stream opening, or a modem answering, would). */
  async connect(deviceId: number) {
    this.#connected.add(deviceId)
    await this.#track(this.#reports!.connected(deviceId))
  }

  /** Its connection drops. */
  async drop(deviceId: number) {
    if (!this.#connected.delete(deviceId)) return
    await this.#track(this.#reports!.disconnected(deviceId))
  }

  /** An SMS arrives on the phone. */
  async receive(deviceId: number, sms: InboundSms) {
    await this.#stored(this.#reports!.inbound(deviceId, sms))
  }

  async battery(deviceId: number, batteryLevel: number) {
    await this.#stored(this.#reports!.status(deviceId, { batteryLevel, charging: false }))
  }

  isConnected(deviceId: number): boolean {
    return this.#connected.has(deviceId)
  }

  connectedDevices(): number[] {
    return [...this.#connected]
  }

  sendOrders(deviceId: number, orders: PhoneOrder[]): boolean {
    if (!this.#connected.has(deviceId)) return false
    for (const order of orders) {
      this.orders.push({ ...order, deviceId })
      this.#track(this.#carryOut(deviceId, order))
    }
    return true
  }

  async disconnect(deviceId: number, reason: LetGoReason): Promise<void> {
    if (!this.#connected.has(deviceId)) return
    this.letGo.push({ deviceId, reason })
    await this.drop(deviceId)
  }

  async settled(): Promise<void> {
    while (this.#inFlight.size) await Promise.all([...this.#inFlight])
  }

  async close(): Promise<void> {
    for (const deviceId of [...this.#connected]) await this.drop(deviceId)
    await this.settled()
  }

  /** The phone's answers, one after the other, as a phone sends them. */
  async #carryOut(deviceId: number, order: PhoneOrder) {
    const reports = this.#reports!
    const answer = this.answer
    if (answer.kind === 'silence') return
    if (answer.kind === 'fail') return this.#stored(reports.failed(deviceId, order.messageId, answer.errorCode))
    await this.#stored(reports.accepted(deviceId, order.messageId))
    if (answer.kind === 'accept') return
    await this.#stored(reports.sent(deviceId, order.messageId))
    if (answer.kind === 'send') return
    await this.#stored(reports.delivered(deviceId, order.messageId))
  }

  async #stored(taken: Promise<Taken>) {
    await this.#track((await taken).stored)
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#inFlight.add(work)
    void work.finally(() => this.#inFlight.delete(work)).catch(() => {})
    return work
  }
}
