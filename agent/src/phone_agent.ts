import { randomUUID } from 'node:crypto'
import WebSocket from 'ws'
import { HandledOrders } from './handled_orders.js'
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
  /** Where handled orders are remembered (default: in memory only). */
  handled?: HandledOrders
  /** Told when the state file could not be written (the order is carried out anyway). */
  onStateError?: (error: Error) => void
}

/** Sent in `hello` and at pairing: the device's app version on the gateway. */
export const AGENT_VERSION = '0.1.0'

/** The gateway answered the socket request with an HTTP status instead of upgrading. */
export class SocketRefused extends Error {
  constructor(readonly status: number) {
    super(`socket refused: ${status}`)
  }
}

export class PhoneAgent {
  /** The newest socket, possibly still connecting. */
  #socket: WebSocket | null = null
  /** The socket the gateway welcomed: the only one frames go out on. */
  #live: WebSocket | null = null
  #connecting: Promise<void> | null = null
  /** Up frames not acked yet, in the order they were made. */
  readonly #unacked = new Map<string, Record<string, unknown>>()
  readonly #handled: HandledOrders
  /** Frames reporting an order's outcome, by frame id: their ack is remembered. */
  readonly #outcomeFrames = new Map<string, string>()
  /** Frames whose sender waits for the gateway's ack, by frame id. */
  readonly #ackWaiters = new Map<string, () => void>()
  /** Orders being sent, each with the reports that came before its send's outcome was reported. */
  readonly #sending = new Map<string, Array<Record<string, unknown>>>()
  #timers: NodeJS.Timeout[] = []
  #idleWaiters: Array<() => void> = []
  #closeWaiters: Array<(code: number) => void> = []
  #working = 0

  constructor(private options: AgentOptions) {
    this.#handled = options.handled ?? new HandledOrders()
    // Resolves once the gateway stored it: a modem deletes the SMS from its SIM only then.
    options.driver.onInbound((sms) => new Promise<void>((stored) => this.#ackWaiters.set(this.#report({ type: 'inbound', ...sms }), stored)))
    options.driver.onDelivered((messageId) => this.#afterOutcome(messageId, { type: 'delivered', messageId }))
    // A status report saying the SMS will never arrive: the failed frame with its meaning.
    options.driver.onDeliveryFailed?.((messageId, reason) => this.#afterOutcome(messageId, { type: 'failed', messageId, reason }))
    // Outcomes a stop kept from the gateway: it holds those messages as taken (dispatched) and
    // would wait for a report forever. One cut mid-send may or may not have left: it is
    // reported OUTCOME_UNKNOWN and never sent again.
    for (const { messageId, outcome, reason } of this.#handled.unreported()) {
      if (outcome === 'sent') this.#reportOutcome(messageId, { type: 'sent' })
      else this.#reportOutcome(messageId, { type: 'failed', reason: outcome === 'interrupted' ? 'OUTCOME_UNKNOWN' : reason ?? 'GENERIC_FAILURE' })
    }
  }

  static async pair(gatewayUrl: string, code: string, device: { name: string; model?: string; appVersion?: string; sims: SmsDriver['sims'] extends () => infer S ? S : never }) {
    const url = `${gatewayUrl.replace(/\/+$/, '')}/api/v1/devices/pair`
    let response: Response
    try {
      response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, ...device }) })
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause
      throw new Error(`cannot reach the gateway at ${gatewayUrl} (${cause?.code ?? cause?.message ?? (error as Error).message})`)
    }
    const body = (await response.json().catch(() => null)) as any
    if (response.status !== 201) {
      const reason = body?.error?.code ? `${body.error.code}${body.error.message ? ` (${body.error.message})` : ''}` : `HTTP ${response.status}`
      throw new Error(`pairing refused: ${reason}`)
    }
    return body as { device: { id: string; name: string }; credential: string }
  }

  /**
   * Connects and resolves once the gateway said welcome. Single flight: a call while another is
   * under way shares it. Two sockets opened at once replace each other at the gateway, and a
   * gateway restart used to crash the agent that way.
   */
  connect(): Promise<void> {
    this.#connecting ??= this.#open().finally(() => (this.#connecting = null))
    return this.#connecting
  }

  #open(): Promise<void> {
    const url = `${this.options.gatewayUrl.replace(/^http/, 'ws').replace(/\/+$/, '')}/api/v1/devices/socket`
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${this.options.credential}` } })
    this.#socket = socket
    return new Promise((resolve, reject) => {
      socket.once('unexpected-response', (_request, response) => {
        reject(new SocketRefused(response.statusCode ?? 0))
        // With this listener ws leaves the handshake to us: end it (emits error, then close).
        socket.terminate()
      })
      // Kept for the socket's life: an error is always followed by close, which is what counts.
      socket.on('error', reject)
      socket.on('message', (data) => {
        let frame: Record<string, any>
        try {
          frame = JSON.parse(String(data))
        } catch {
          return
        }
        this.#onFrame(socket, frame, resolve)
      })
      socket.on('close', (code) => {
        reject(new Error(`socket closed (${code}) before the welcome`))
        // A replaced socket closing (4002) says nothing about the live one.
        if (socket !== this.#live) return
        this.#live = null
        this.#stopTimers()
        for (const waiter of this.#closeWaiters.splice(0)) waiter(code)
      })
    })
  }

  get connected(): boolean {
    return this.#live?.readyState === WebSocket.OPEN
  }

  /** Resolves with the close code once the live socket closes (at once when there is none). */
  disconnected(): Promise<number> {
    if (!this.connected) return Promise.resolve(1006)
    return new Promise((resolve) => this.#closeWaiters.push(resolve))
  }

  /** Closes the sockets; unacked frames are kept for the next connection. */
  async disconnect(): Promise<void> {
    this.#stopTimers()
    const sockets = new Set([this.#live, this.#socket].filter((socket) => socket && socket.readyState !== WebSocket.CLOSED) as WebSocket[])
    await Promise.all(
      [...sockets].map(
        (socket) =>
          new Promise<void>((resolve) => {
            socket.once('close', () => resolve())
            socket.close()
          })
      )
    )
  }

  /** Sends any frame (tests use it to replay or to speak out of turn); dropped when offline. */
  send(frame: Record<string, unknown>) {
    this.#transmit(this.#live, frame)
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

  #onFrame(socket: WebSocket, frame: Record<string, any>, welcomed: () => void) {
    if (frame.type === 'welcome') {
      if (socket !== this.#socket) return
      this.#live = socket
      const pending = [...this.#unacked.values()]
      // Says which agent this is first (the device's app version), then whatever the gateway
      // never acknowledged goes again, in order, on the socket welcomed.
      this.#report({ type: 'hello', appVersion: AGENT_VERSION })
      for (const frame of pending) this.#transmit(socket, frame)
      this.#startTimers()
      welcomed()
    } else if (frame.type === 'ack') {
      this.#unacked.delete(frame.of)
      this.#ackWaiters.get(frame.of)?.()
      this.#ackWaiters.delete(frame.of)
      const messageId = this.#outcomeFrames.get(frame.of)
      if (messageId !== undefined) {
        this.#outcomeFrames.delete(frame.of)
        void this.#handled.markReported(messageId).catch((error: Error) => this.options.onStateError?.(error))
      }
      this.#checkIdle()
    } else if (frame.type === 'send') {
      void this.#carryOut({ messageId: String(frame.messageId), to: frame.to, text: frame.text, simSlot: frame.simSlot })
    }
  }

  async #carryOut(order: SendOrder) {
    const { messageId } = order
    const known = this.#handled.outcome(messageId)
    if (known === 'sending') return
    this.#report({ type: 'accepted', messageId })
    // A repeated order (our acceptance or report was lost, or the agent restarted): report what
    // happened, never send twice. Only a failed attempt (nothing left the phone) is tried again.
    if (known === 'sent') return this.#reportOutcome(messageId, { type: 'sent' })
    if (known === 'interrupted') return this.#reportOutcome(messageId, { type: 'failed', reason: 'OUTCOME_UNKNOWN' })
    this.#working++
    try {
      // Recorded before the driver sends: an agent killed mid-send must not send again.
      await this.#record(messageId, 'sending')
      this.#sending.set(messageId, [])
      const outcome = await this.options.driver.send(order)
      await this.#record(messageId, outcome.ok ? 'sent' : 'failed', outcome.ok ? undefined : outcome.reason)
      this.#reportOutcome(messageId, outcome.ok ? { type: 'sent' } : { type: 'failed', reason: outcome.reason })
    } finally {
      for (const frame of this.#sending.get(messageId) ?? []) this.#report(frame)
      this.#sending.delete(messageId)
      this.#working--
      this.#checkIdle()
    }
  }

  #record(messageId: string, outcome: 'sending' | 'sent' | 'failed', reason?: string) {
    return this.#handled.record(messageId, outcome, reason).catch((error: Error) => this.options.onStateError?.(error))
  }

  /**
   * A status report (delivered, or failed on the network) goes after its send's own outcome: the
   * gateway retries an attempt that fails before `sent`, so a report overtaking it would send the
   * SMS twice.
   */
  #afterOutcome(messageId: string, frame: Record<string, unknown>) {
    const waiting = this.#sending.get(messageId)
    if (waiting) waiting.push(frame)
    else this.#report(frame)
  }

  /** Reports an order's outcome; its ack is written to the state file (see HandledOrders). */
  #reportOutcome(messageId: string, outcome: { type: 'sent' } | { type: 'failed'; reason: string }) {
    this.#outcomeFrames.set(this.#report({ ...outcome, messageId }), messageId)
  }

  #report(fields: Record<string, unknown>): string {
    const frame = { id: randomUUID(), ...fields }
    this.#unacked.set(frame.id, frame)
    this.#transmit(this.#live, frame)
    return frame.id
  }

  /** Sends on an open socket only; otherwise the frame waits in #unacked for the next welcome. */
  #transmit(socket: WebSocket | null, frame: Record<string, unknown>) {
    if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame))
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
