import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http'
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https'
import type { Duplex } from 'node:stream'
import { collapseRepeatedSlashes } from '#core/http/request_path'

export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void

/**
 * Protocol upgrades (WebSockets) on the gateway's own HTTP server. Modules register a handler
 * for a path (the devices module's phone socket); any other upgrade is refused. The server
 * entry point and the test server both create their Node server through `createGatewayServer`;
 * an https server (the gateway's own TLS) upgrades the same way, so phones' sockets are wss.
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

/** The gateway's Node server: https with `tls` (a certificate and its key, PEM), else http. */
export function createGatewayServer(handler: RequestListener, upgrades: UpgradeRoutes): Server
export function createGatewayServer(handler: RequestListener, upgrades: UpgradeRoutes, tls: { cert: Buffer; key: Buffer }): HttpsServer
export function createGatewayServer(handler: RequestListener, upgrades: UpgradeRoutes, tls?: { cert: Buffer; key: Buffer }): Server | HttpsServer {
  const normalised: RequestListener = (request, response) => {
    collapseRepeatedSlashes(request)
    handler(request, response)
  }
  const server = tls ? createHttpsServer({ cert: tls.cert, key: tls.key }, normalised) : createServer(normalised)
  server.on('upgrade', (request, socket, head) => {
    collapseRepeatedSlashes(request)
    upgrades.handle(request, socket, head)
  })
  return server
}

/** The one set of upgrade routes of this process (the HTTP server is one too). */
export const upgradeRoutes = new UpgradeRoutes()
