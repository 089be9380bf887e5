import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http'
import type { Duplex } from 'node:stream'

export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void

/**
 * Protocol upgrades (WebSockets) on the gateway's own HTTP server. Modules register a handler
 * for a path (the devices module's phone socket); any other upgrade is refused. The server
 * entry point and the test server both create their Node server through `createGatewayServer`.
 */
export class UpgradeRoutes {
  readonly #handlers = new Map<string, UpgradeHandler>()

  add(path: string, handler: UpgradeHandler): void {
    if (this.#handlers.has(path)) throw new Error(`Two upgrade handlers for ${path}`)
    this.#handlers.set(path, handler)
  }

  handle(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = (request.url ?? '/').split('?')[0]
    const handler = this.#handlers.get(path)
    if (!handler) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return
    }
    handler(request, socket, head)
  }
}

export function createGatewayServer(handler: RequestListener, upgrades: UpgradeRoutes): Server {
  const server = createServer(handler)
  server.on('upgrade', (request, socket, head) => upgrades.handle(request, socket, head))
  return server
}

/** The one set of upgrade routes of this process (the HTTP server is one too). */
export const upgradeRoutes = new UpgradeRoutes()
