import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import type { Logger } from '@adonisjs/core/logger'
import { logSafeError } from '#core/logging/redaction'
import { ApiError } from '#core/http/api_error'
import { upgradeRoutes } from '#core/http/upgrade_routes'
import type { AgentCredentials, LetGoReason, PhoneChannel, PhoneOrder, PhoneReports } from '#modules/devices/public'
import { CLOSE, DEVICE_SOCKET_PATH, MAX_FRAME_BYTES, type UpFrame } from '#modules/agent/channel/agent_protocol'
import { takeFrame } from '#modules/agent/channel/agent_frames'
import { refuseUpgrade } from '#modules/agent/channel/upgrade_refusal'

/** A phone that does not answer the close handshake within this is cut. */
const CUT_UNANSWERED_CLOSE_MS = 200

const LET_GO: Record<LetGoReason, { code: number; reason: string }> = {
  unpaired: { code: CLOSE.unpaired, reason: 'unpaired' },
  silent: { code: CLOSE.silent, reason: 'silent for 5 minutes' },
}

/**
 * Our phone agent (`agent/`) over its WebSocket, on the gateway's own HTTP server
 * (docs/device-protocol.md): authenticates the upgrade with the device credential, keeps one
 * socket per phone, hands each frame to the gateway's reports inlet and acks it once what it
 * says is stored. Frames of one phone are taken in one at a time, in order; the next one does
 * not wait for the previous one to be stored (reports are stored in batches).
 */
export class AgentSocketChannel implements PhoneChannel {
  readonly kind = 'agent'
  // The agent may be sending an order before its `accepted` arrives: once handed out, it goes on.
  readonly takesBackUnaccepted = false
  readonly #server = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES })
  readonly #sockets = new Map<number, WebSocket>()
  /** Each phone's TCP socket under its WebSocket, to write a turn's frames together. */
  readonly #tcp = new WeakMap<WebSocket, Duplex>()
  readonly #queues = new Map<number, Promise<unknown>>()
  /** Frames taken in whose content is not stored yet. */
  readonly #storing = new Set<Promise<void>>()
  #reports: PhoneReports | null = null

  constructor(
    private credentials: AgentCredentials,
    private logger: Logger
  ) {}

  listen(reports: PhoneReports) {
    this.#reports = reports
    upgradeRoutes.add(DEVICE_SOCKET_PATH, this.handleUpgrade)
  }

  isConnected(deviceId: number): boolean {
    return this.#sockets.has(deviceId)
  }

  connectedDevices(): number[] {
    return [...this.#sockets.keys()]
  }

  /** One `send` frame per order; false when the phone is not connected. */
  sendOrders(deviceId: number, orders: PhoneOrder[]): boolean {
    const socket = this.#sockets.get(deviceId)
    if (!socket || socket.readyState !== socket.OPEN) return false
    for (const order of orders) {
      const frame = { type: 'send', id: randomUUID(), messageId: String(order.messageId), to: order.to, text: order.text, simSlot: order.simSlot }
      this.#write(socket, JSON.stringify(frame))
    }
    return true
  }

  /**
   * Frames written to a phone in one turn of the event loop leave together: a dispatch pass
   * hands a phone many orders at once, and a stored batch of reports acks many frames at once.
   * One write for all of them instead of a system call each, which was a sixth of the gateway's
   * main thread on the bulk path.
   */
  #write(socket: WebSocket, text: string) {
    const tcp = this.#tcp.get(socket)
    if (tcp && !tcp.writableCorked) {
      tcp.cork()
      process.nextTick(() => tcp.uncork())
    }
    socket.send(text)
  }

  disconnect(deviceId: number, reason: LetGoReason): Promise<void> {
    return this.#close(deviceId, LET_GO[reason].code, LET_GO[reason].reason)
  }

  /** Closes a phone's socket; resolves once it is closed (a phone that does not answer is cut). */
  async #close(deviceId: number, code: number, reason: string): Promise<void> {
    const socket = this.#sockets.get(deviceId)
    if (!socket || socket.readyState === socket.CLOSED) return
    await new Promise<void>((resolve) => {
      const cut = setTimeout(() => socket.terminate(), CUT_UNANSWERED_CLOSE_MS)
      cut.unref()
      socket.once('close', () => {
        clearTimeout(cut)
        resolve()
      })
      socket.close(code, reason)
    })
  }

  /** Closes every phone socket (code 1001) and refuses new ones. */
  async close() {
    await Promise.all([...this.#sockets.keys()].map((deviceId) => this.#close(deviceId, CLOSE.stopping, 'gateway stopping')))
    this.#server.close()
    // Their last frames (and "offline") are stored before the database closes.
    await this.settled()
  }

  /** The upgrade handler registered on the HTTP server for DEVICE_SOCKET_PATH. */
  handleUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    void this.#authenticate(request).then((device) => {
      if (device === 'unchecked') {
        // Not the phone's fault: an agent that would give up on a refusal must try again.
        return refuseUpgrade(socket, new ApiError('INTERNAL_ERROR', 'The credential could not be checked; try again shortly'))
      }
      if (device === null) return refuseUpgrade(socket, new ApiError('INVALID_DEVICE_CREDENTIAL', 'Unknown or revoked device credential: pair the phone again'))
      this.#server.handleUpgrade(request, socket, head, (webSocket) => {
        this.#tcp.set(webSocket, socket)
        this.#accept(device, webSocket)
      })
    })
  }

  async #authenticate(request: IncomingMessage): Promise<{ id: number; name: string } | null | 'unchecked'> {
    const header = request.headers.authorization ?? ''
    const presented = header.startsWith('Bearer ') ? header.slice(7) : String(request.headers['x-device-credential'] ?? '')
    try {
      return await this.credentials.deviceOf(presented)
    } catch (error) {
      this.logger.error({ err: logSafeError(error) }, 'could not check a device credential')
      return 'unchecked'
    }
  }

  #accept(device: { id: number; name: string }, socket: WebSocket) {
    const deviceId = device.id
    const reports = this.#reports!
    this.#sockets.get(deviceId)?.close(CLOSE.replaced, 'replaced by a newer connection')
    this.#sockets.set(deviceId, socket)
    socket.send(
      JSON.stringify({ type: 'welcome', id: randomUUID(), device: { id: String(deviceId), name: device.name }, serverTime: new Date().toISOString() })
    )
    this.#inOrder(deviceId, () => reports.connected(deviceId))

    socket.on('message', (data) => {
      let frame: UpFrame
      try {
        frame = JSON.parse(String(data))
        if (!frame || typeof frame.type !== 'string' || typeof frame.id !== 'string' || frame.id.length > 100) throw new Error('shape')
      } catch {
        socket.close(CLOSE.invalidFrame, 'frames are JSON objects with a type and an id')
        return
      }
      this.#inOrder(deviceId, async () => {
        const { stored } = await takeFrame(reports, deviceId, frame)
        const acked = stored.then(
          () => {
            if (socket.readyState === socket.OPEN) this.#write(socket, JSON.stringify({ type: 'ack', id: randomUUID(), of: frame.id }))
          },
          // Not acked: the phone sends the frame again when it reconnects.
          (error) => this.logger.error({ err: logSafeError(error), deviceId }, 'a phone frame could not be stored')
        )
        this.#storing.add(acked)
        void acked.finally(() => this.#storing.delete(acked))
      })
    })
    socket.on('close', () => {
      if (this.#sockets.get(deviceId) !== socket) return
      this.#sockets.delete(deviceId)
      this.#inOrder(deviceId, () => reports.disconnected(deviceId))
    })
    socket.on('error', () => socket.terminate())
  }

  /** One phone's frames are handled strictly in order; a failure is logged, not acked. */
  #inOrder(deviceId: number, work: () => Promise<void>) {
    const previous = this.#queues.get(deviceId) ?? Promise.resolve()
    const next = previous
      .then(work)
      .catch((error) => this.logger.error({ err: logSafeError(error), deviceId }, 'a phone frame could not be handled'))
    this.#queues.set(deviceId, next)
    void next.then(() => {
      if (this.#queues.get(deviceId) === next) this.#queues.delete(deviceId)
    })
  }

  async settled(): Promise<void> {
    while (this.#queues.size || this.#storing.size) await Promise.all([...this.#queues.values(), ...this.#storing])
  }
}
