import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'

export const CREDENTIAL = 'dev_1.fake-secret'

export interface FakeGatewayOptions {
  /** Frame types the gateway acks (default all): the others stay unacked on the phone. */
  acks?: (type: string) => boolean
  /** Upgrades after the first of each start wait this long: a second socket stays CONNECTING. */
  slowLaterUpgradesMs?: number
}

/**
 * The device side of a gateway on a loopback port, as docs/device-protocol.md describes it (401
 * before the upgrade for a wrong credential, welcome, acks), that can go away and come back on
 * the same port as a restarted gateway does.
 */
export async function fakeGateway(options: FakeGatewayOptions = {}) {
  const frames: Array<Record<string, any>> = []
  const sockets: WebSocket[] = []
  let accepted = 0
  let attempts = 0
  let server: Server | null = null
  let port = 0
  const wss = new WebSocketServer({ noServer: true })

  const onUpgrade = (request: import('node:http').IncomingMessage, socket: Duplex, head: Buffer) => {
    attempts++
    if (request.headers.authorization !== `Bearer ${CREDENTIAL}`) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return
    }
    const delay = accepted++ === 0 ? 0 : (options.slowLaterUpgradesMs ?? 0)
    setTimeout(() => {
      if (socket.destroyed) return
      wss.handleUpgrade(request, socket, head, (webSocket) => {
        // One socket per device: a newer one replaces the older (close code 4002).
        for (const older of sockets) if (older.readyState === older.OPEN) older.close(4002, 'replaced')
        sockets.push(webSocket)
        webSocket.send(JSON.stringify({ type: 'welcome', id: randomUUID(), device: { id: '1', name: 'Fake' }, serverTime: new Date().toISOString() }))
        webSocket.on('message', (data) => {
          const frame = JSON.parse(String(data))
          frames.push(frame)
          if (options.acks?.(frame.type) ?? true) webSocket.send(JSON.stringify({ type: 'ack', id: randomUUID(), of: frame.id }))
        })
      })
    }, delay)
  }

  const gateway = {
    frames,
    sockets,
    get url() {
      return `http://127.0.0.1:${port}`
    },
    /** Socket requests received, refused ones included. */
    get attempts() {
      return attempts
    },
    get open() {
      return sockets.filter((socket) => socket.readyState === socket.OPEN)
    },
    async start() {
      accepted = 0
      server = createServer((_request, response) => response.writeHead(404).end())
      server.on('upgrade', onUpgrade)
      await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve))
      port = (server.address() as { port: number }).port
    },
    /** Stops as the gateway does on SIGTERM: sockets closed with 1001, nothing listening. */
    async stop() {
      for (const socket of sockets) if (socket.readyState === socket.OPEN) socket.close(1001, 'gateway stopping')
      await new Promise<void>((resolve) => server!.close(() => resolve()))
      server!.closeAllConnections()
    },
    /** An order down the newest open socket. */
    order(messageId: string, to = '+33612345678', text = 'Your code is 1234') {
      gateway.open.at(-1)!.send(JSON.stringify({ type: 'send', id: randomUUID(), messageId, to, text, simSlot: 0 }))
    },
    closeNewest(code: number) {
      gateway.open.at(-1)!.close(code, 'closed by the test')
    },
  }
  await gateway.start()
  return gateway
}

/** Waits for a condition with a deadline, for what happens on a real socket. */
export async function eventually(condition: () => boolean, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
