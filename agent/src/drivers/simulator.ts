import { randomUUID } from 'node:crypto'
import type { DeviceStatus, InboundSms, SendOrder, SendOutcome, SmsDriver } from '../sms_driver.js'

export interface SimulatorOptions {
  sims?: Array<{ slot: number; label?: string; operator?: string; number?: string }>
  /** Milliseconds a send takes (default 0). */
  latencyMs?: number
  /** Share of sends that fail, 0 to 1 (default 0). */
  failureRate?: number
  /** Share of sent messages that get a delivery receipt, 0 to 1 (default 1). */
  deliveryRate?: number
  battery?: { level: number; charging: boolean }
  signal?: number
  /** Once started, an inbound SMS every so many ms (default 0: none). */
  inboundEveryMs?: number
  random?: () => number
}

/** A fictional number (555-01xx) for inbound SMS before anything was sent. */
const FICTIONAL_SENDER = '+15555550123'

/**
 * A phone that sends nothing over the air: for tests, benchmarks and demos. Every SMS it
 * "sends" is kept in `sent`; `receive()` makes an SMS arrive.
 */
export class SimulatorDriver implements SmsDriver {
  readonly sent: SendOrder[] = []
  #inbound: Array<(sms: InboundSms) => void> = []
  #delivered: Array<(messageId: string) => void> = []
  #options: Required<Omit<SimulatorOptions, 'random'>> & { random: () => number }
  #timer: NodeJS.Timeout | null = null
  #generated = 0

  constructor(options: SimulatorOptions = {}) {
    this.#options = {
      sims: options.sims ?? [{ slot: 0, operator: 'Simulated' }],
      latencyMs: options.latencyMs ?? 0,
      failureRate: options.failureRate ?? 0,
      deliveryRate: options.deliveryRate ?? 1,
      battery: options.battery ?? { level: 80, charging: false },
      signal: options.signal ?? 4,
      inboundEveryMs: options.inboundEveryMs ?? 0,
      random: options.random ?? Math.random,
    }
  }

  sims() {
    return this.#options.sims
  }

  setBattery(level: number, charging = false) {
    this.#options.battery = { level, charging }
  }

  async send(order: SendOrder): Promise<SendOutcome> {
    if (this.#options.latencyMs) await new Promise((resolve) => setTimeout(resolve, this.#options.latencyMs))
    if (this.#options.random() < this.#options.failureRate) return { ok: false, reason: 'GENERIC_FAILURE' }
    this.sent.push(order)
    if (this.#options.random() < this.#options.deliveryRate) {
      setImmediate(() => this.#delivered.forEach((listener) => listener(order.messageId)))
    }
    return { ok: true }
  }

  async status(): Promise<DeviceStatus> {
    return { battery: this.#options.battery, signal: this.#options.signal }
  }

  receive(from: string, body: string, simSlot = 0, ref: string = randomUUID()) {
    const sms: InboundSms = { ref, from, body, receivedAt: new Date().toISOString(), simSlot }
    this.#inbound.forEach((listener) => listener(sms))
    return sms
  }

  /** Starts generating inbound SMS (with inboundEveryMs): replies from numbers it sent to. */
  start() {
    if (!this.#options.inboundEveryMs || this.#timer) return
    this.#timer = setInterval(() => {
      const { random, sims } = this.#options
      const from = this.sent.length ? this.sent[Math.floor(random() * this.sent.length)].to : FICTIONAL_SENDER
      this.receive(from, `Simulated reply ${++this.#generated}`, sims[Math.floor(random() * sims.length)].slot)
    }, this.#options.inboundEveryMs)
    this.#timer.unref()
  }

  stop() {
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = null
  }

  onInbound(listener: (sms: InboundSms) => void) {
    this.#inbound.push(listener)
  }

  onDelivered(listener: (messageId: string) => void) {
    this.#delivered.push(listener)
  }
}
