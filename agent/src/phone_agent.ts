import { randomUUID } from 'node:crypto'
import WebSocket from 'ws'
import type { SendOrder, SmsDriver } from './sms_driver.js'

/**
 * The phone side of docs/device-protocol.md, independent of the gateway's code: pairs once,
 * holds the socket, carries out send orders through its driver, and reports back. Every up
 * frame is kept until the gateway acks it and sent again after a reconnect; orders are
 * remembered by messageId so a repeated order never sends the SMS twice.
 */
export interface AgentOptions {
  /** http(s) address of the gateway. */
  gatewayUrl: string
  credential: string
  driver: SmsDriver
  heartbeatMs?: number
  statusEveryMs?: number
}

type Outcome = 'sent' | 'failed' | 'sending'

export class PhoneAgent {
  #socket: WebSocket | null = null
  /** Up frames not acked yet, in the order they were made. */
  readonly #unacked = new Map<string, Record<string, unknown>>()
  /** What happened to each order, by messageId. */
  readonly #orders = new Map<string, Outcome>()
  #timers: NodeJS.Timeout[] = []
  #idleWaiters: Array<() => void> = []
  #working = 0

  constructor(private options: AgentOptions) {
    options.driver.onInbound((sms) => this.#report({ type: 'inbound', ...sms }))
    options.driver.onDelivered((messageId) => this.#report({ type: 'delivered', messageId }))
  }

  static async pair(gatewayUrl: string, code: string, device: { name: string; model?: string; appVersion?: string; sims: SmsDriver['sims'] extends () => infer S ? S : never }) {
    const response = await fetch(`${gatewayUrl.replace(/\/+$/, '')}/api/v1/devices/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, ...device }),
    })
    const body = (await response.json()) as any
    if (response.status !== 201) throw new Error(`pairing refused: ${body?.error?.code ?? response.status}`)
    return body as { device: { id: string; name: string }; credential: string }
  }

  /** Connects and resolves once the gateway said welcome. */
  connect(): Promise<void> {
    const url = `${this.options.gatewayUrl.replace(/^http/, 'ws').replace(/\/+$/, '')}/api/v1/devices/socket`
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers: { authorization: `Bearer ${this.options.credential}` } })
      this.#socket = socket
      socket.once('unexpected-response', (_request, response) => reject(new Error(`socket refused: ${response.statusCode}`)))
      socket.once('error', reject)
      socket.on('message', (data) => this.#onFrame(JSON.parse(String(data)), resolve))
      socket.on('close', () => this.#stopTimers())
    })
  }

  get connected(): boolean {
    return this.#socket?.readyState === WebSocket.OPEN
  }

  /** Closes the socket; unacked frames are kept for the next connection. */
  async disconnect(): Promise<void> {
    const socket = this.#socket
    this.#stopTimers()
    if (!socket || socket.readyState === WebSocket.CLOSED) return
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve())
      socket.close()
    })
  }

  /** Sends any frame (tests use it to replay or to speak out of turn). */
  send(frame: Record<string, unknown>) {
    this.#socket?.send(JSON.stringify(frame))
  }

  heartbeat() {
    this.#report({ type: 'heartbeat' })
  }

  async reportStatus() {
    this.#report({ type: 'status', ...(await this.options.driver.status()) })
  }

  /** Resolves when every frame is acked and every order carried out. */
  idle(): Promise<void> {
    if (!this.#unacked.size && !this.#working) return Promise.resolve()
    return new Promise((resolve) => this.#idleWaiters.push(resolve))
  }

  #onFrame(frame: Record<string, any>, welcomed: () => void) {
    if (frame.type === 'welcome') {
      // Whatever the gateway never acknowledged goes again, in order.
      for (const pending of this.#unacked.values()) this.#socket?.send(JSON.stringify(pending))
      this.#startTimers()
      welcomed()
    } else if (frame.type === 'ack') {
      this.#unacked.delete(frame.of)
      this.#checkIdle()
    } else if (frame.type === 'send') {
      void this.#carryOut({ messageId: String(frame.messageId), to: frame.to, text: frame.text, simSlot: frame.simSlot })
    }
  }

  async #carryOut(order: SendOrder) {
    const known = this.#orders.get(order.messageId)
    if (known === 'sending') return
    this.#report({ type: 'accepted', messageId: order.messageId })
    // A repeated order (our acceptance was lost): report what happened, never send twice.
    if (known) return this.#report({ type: known, messageId: order.messageId, ...(known === 'failed' ? { reason: 'GENERIC_FAILURE' } : {}) })
    this.#orders.set(order.messageId, 'sending')
    this.#working++
    try {
      const outcome = await this.options.driver.send(order)
      this.#orders.set(order.messageId, outcome.ok ? 'sent' : 'failed')
      this.#report(outcome.ok ? { type: 'sent', messageId: order.messageId } : { type: 'failed', messageId: order.messageId, reason: outcome.reason })
    } finally {
      this.#working--
      this.#checkIdle()
    }
  }

  #report(fields: Record<string, unknown>) {
    const frame = { id: randomUUID(), ...fields }
    this.#unacked.set(frame.id, frame)
    if (this.connected) this.#socket!.send(JSON.stringify(frame))
  }

  #startTimers() {
    this.#stopTimers()
    this.#timers.push(setInterval(() => this.heartbeat(), this.options.heartbeatMs ?? 30_000))
    this.#timers.push(setInterval(() => void this.reportStatus(), this.options.statusEveryMs ?? 300_000))
    for (const timer of this.#timers) timer.unref()
  }

  #stopTimers() {
    for (const timer of this.#timers) clearInterval(timer)
    this.#timers = []
  }

  #checkIdle() {
    if (this.#unacked.size || this.#working) return
    for (const resolve of this.#idleWaiters.splice(0)) resolve()
  }
}
