import { randomUUID } from 'node:crypto'
import { STATUS_CODES, type IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import type { Logger } from '@adonisjs/core/logger'
import type { Secrets } from '#core/secrets/secrets'
import { logSafeError } from '#core/logging/redaction'
import { ApiError } from '#core/http/api_error'
import Device from '#modules/devices/models/device'
import { credentialMatches, parseDeviceCredential } from '#modules/devices/services/device_credentials'

export const DEVICE_SOCKET_PATH = '/api/v1/devices/socket'
/** A phone that does not answer the close handshake within this is cut. */
const CUT_UNANSWERED_CLOSE_MS = 200

/** A frame from a phone: a type, an id, and the fields of its type (docs/device-protocol.md). */
export interface UpFrame {
  type: string
  id: string
  [field: string]: unknown
}

export interface FrameHandlers {
  connected(deviceId: number): Promise<void>
  /** Takes a frame in (in order); `stored` resolves once what it says is stored. */
  frame(deviceId: number, frame: UpFrame): Promise<{ stored: Promise<void> }>
  disconnected(deviceId: number): Promise<void>
}

/** Close codes the protocol defines. */
export const CLOSE = { unpaired: 4001, replaced: 4002, invalidFrame: 4003, stopping: 1001 } as const

/**
 * The phones' WebSockets on the gateway's own HTTP server: authenticates the upgrade with the
 * device credential, keeps one socket per phone, hands each frame to the handlers and acks it
 * once they have stored what it says. Frames of one phone are taken in one at a time, in order;
 * the next one does not wait for the previous one to be stored (reports are stored in batches).
 */
export class DeviceHub {
  readonly #server = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 })
  readonly #sockets = new Map<number, WebSocket>()
  /** Each phone's TCP socket under its WebSocket, to write a turn's frames together. */
  readonly #tcp = new WeakMap<WebSocket, Duplex>()
  readonly #queues = new Map<number, Promise<unknown>>()
  /** Frames taken in whose content is not stored yet. */
  readonly #storing = new Set<Promise<void>>()
  #handlers: FrameHandlers | null = null

  constructor(
    private secrets: Secrets,
    private logger: Logger
  ) {}

  useHandlers(handlers: FrameHandlers) {
    this.#handlers = handlers
  }

  isConnected(deviceId: number): boolean {
    return this.#sockets.has(deviceId)
  }

  connectedDevices(): number[] {
    return [...this.#sockets.keys()]
  }

  /** Sends a down frame; false when the phone is not connected. */
  send(deviceId: number, frame: Record<string, unknown> & { type: string }): boolean {
    const socket = this.#sockets.get(deviceId)
    if (!socket || socket.readyState !== socket.OPEN) return false
    this.#write(socket, JSON.stringify({ id: randomUUID(), ...frame }))
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

  /** Closes a phone's socket; resolves once it is closed (a phone that does not answer is cut). */
  async disconnect(deviceId: number, code: number, reason: string): Promise<void> {
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
    await Promise.all([...this.#sockets.keys()].map((deviceId) => this.disconnect(deviceId, CLOSE.stopping, 'gateway stopping')))
    this.#server.close()
    // Their last frames (and "offline") are stored before the database closes.
    await this.settled()
  }

  /** The upgrade handler registered on the HTTP server for DEVICE_SOCKET_PATH. */
  handleUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    void this.#authenticate(request).then((device) => {
      if (device === 'unchecked') {
        // Not the phone's fault: an agent that would give up on a refusal must try again.
        return refuse(socket, new ApiError('INTERNAL_ERROR', 'The credential could not be checked; try again shortly'))
      }
      if (device === null) return refuse(socket, new ApiError('INVALID_DEVICE_CREDENTIAL', 'Unknown or revoked device credential: pair the phone again'))
      this.#server.handleUpgrade(request, socket, head, (webSocket) => {
        this.#tcp.set(webSocket, socket)
        this.#accept(device, webSocket)
      })
    })
  }

  async #authenticate(request: IncomingMessage): Promise<{ id: number; name: string } | null | 'unchecked'> {
    const header = request.headers.authorization ?? ''
    const presented = header.startsWith('Bearer ') ? header.slice(7) : String(request.headers['x-device-credential'] ?? '')
    const parsed = parseDeviceCredential(presented)
    if (!parsed) return null
    try {
      const device = await Device.find(parsed.deviceId)
      return device && credentialMatches(this.secrets, device.credentialSealed, parsed.secret) ? { id: device.id, name: device.name } : null
    } catch (error) {
      this.logger.error({ err: logSafeError(error) }, 'could not check a device credential')
      return 'unchecked'
    }
  }

  #accept(device: { id: number; name: string }, socket: WebSocket) {
    const deviceId = device.id
    this.#sockets.get(deviceId)?.close(CLOSE.replaced, 'replaced by a newer connection')
    this.#sockets.set(deviceId, socket)
    socket.send(
      JSON.stringify({ type: 'welcome', id: randomUUID(), device: { id: String(deviceId), name: device.name }, serverTime: new Date().toISOString() })
    )
    this.#inOrder(deviceId, () => this.#handlers!.connected(deviceId))

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
        const { stored } = await this.#handlers!.frame(deviceId, frame)
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
      this.#inOrder(deviceId, () => this.#handlers!.disconnected(deviceId))
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

  /** Resolves when every frame received so far is handled and stored (tests, stopping). */
  async settled(): Promise<void> {
    while (this.#queues.size || this.#storing.size) await Promise.all([...this.#queues.values(), ...this.#storing])
  }
}

/**
 * Answers an upgrade it will not make in the API's error format, request id included: before the
 * upgrade there is no HTTP context, so the answer is written on the socket (status and code from
 * the error kind, like every other refusal).
 */
function refuse(socket: Duplex, error: ApiError) {
  const requestId = randomUUID()
  const body = JSON.stringify({ error: { code: error.code, message: error.message, requestId } })
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}\r\nConnection: close\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\n\r\n${body}`
  )
}
