import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/**
 * How the fake license server treats the next checks: answer a verdict, fail with a 500,
 * redirect elsewhere, never answer (`hang`), drop the connection without a word (`close`), or
 * keep the request until the test answers it with `release()` (`hold`).
 */
export type LicenseServerBehaviour = 'valid' | 'withdrawn' | 'error500' | 'redirect' | 'hang' | 'close' | 'hold'

/** Where `redirect` sends the client: a path that says valid, so following it would show. */
const REDIRECT_TARGET = '/elsewhere'

export interface LicenseCheckRequest {
  method: string
  path: string
  headers: IncomingMessage['headers']
  body: any
}

/**
 * A real HTTP license server on 127.0.0.1 and a free port, speaking the protocol of
 * docs/license.md, whose answers the test sets with `behave()`. It records every request so a
 * test can count calls (no retries, no redirect followed) and read what was sent.
 */
export class FakeLicenseServer {
  behaviour: LicenseServerBehaviour = 'valid'
  readonly requests: LicenseCheckRequest[] = []
  #server: Server
  #sockets = new Set<Socket>()
  #held: ServerResponse[] = []
  #port = 0

  private constructor() {
    this.#server = createServer((request, response) => void this.#answer(request, response))
    this.#server.on('connection', (socket) => {
      this.#sockets.add(socket)
      socket.on('close', () => this.#sockets.delete(socket))
    })
  }

  /** On a free port, or on `port` to come back where a stopped one listened. */
  static async start(port = 0): Promise<FakeLicenseServer> {
    const fake = new FakeLicenseServer()
    await new Promise<void>((resolve, reject) => {
      fake.#server.once('error', reject)
      fake.#server.listen(port, '127.0.0.1', () => resolve())
    })
    const address = fake.#server.address()
    fake.#port = typeof address === 'object' && address ? address.port : 0
    return fake
  }

  /** The base URL to configure as GATEWAY_LICENSE_SERVER. */
  get url(): string {
    return `http://127.0.0.1:${this.#port}`
  }

  behave(behaviour: LicenseServerBehaviour): void {
    this.behaviour = behaviour
  }

  /** Answers every held request with a verdict. */
  release(status: 'valid' | 'withdrawn'): void {
    for (const response of this.#held.splice(0)) {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status }))
    }
  }

  /** Stops listening and drops every connection, hanging ones included. */
  async stop(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy()
    await new Promise<void>((resolve) => this.#server.close(() => resolve()))
  }

  async #answer(request: IncomingMessage, response: ServerResponse) {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const raw = Buffer.concat(chunks).toString('utf8')
    let body: any = raw
    try {
      body = JSON.parse(raw)
    } catch {}
    this.requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body })

    if (request.url === REDIRECT_TARGET) {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"valid"}')
      return
    }
    switch (this.behaviour) {
      case 'valid':
      case 'withdrawn':
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: this.behaviour }))
        return
      case 'error500':
        response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"down for maintenance"}')
        return
      case 'redirect':
        response.writeHead(302, { location: `${this.url}${REDIRECT_TARGET}` }).end()
        return
      case 'hang':
        return
      case 'hold':
        this.#held.push(response)
        return
      case 'close':
        request.socket.destroy()
        return
    }
  }
}
