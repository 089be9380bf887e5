import dns from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import got, { type Method } from 'got'
import type { Clock } from '#core/time/clock'
import { DESTINATION_REFUSED, type DestinationPolicy } from '#modules/webhooks/services/destination_policy'

/**
 * The time limit of one attempt, and how much of an answer's text is kept (docs/webhooks.md,
 * Attempts, retries and giving up).
 */
export const ATTEMPT_TIME_LIMIT_MS = 10_000
export const ANSWER_CHARACTERS_KEPT = 500
/** Enough bytes for 500 characters of UTF-8; the rest of an answer is never read. */
const ANSWER_BYTES_READ = ANSWER_CHARACTERS_KEPT * 4

export interface OutgoingCall {
  url: string
  method: 'POST' | 'PUT' | 'PATCH'
  /** In the order they are sent: the gateway's own headers first, then the custom ones. */
  headers: Array<[string, string]>
  body: string
}

export interface CallOutcome {
  /** A 2xx status line within the time limit. */
  ok: boolean
  httpStatus: number | null
  /** First 500 characters of the answer, when there was one. */
  answer: string | null
  /** Why no answer came (network error, timeout, refused destination). */
  error: string | null
  durationMs: number
}

class RefusedDestination extends Error {
  code = 'EDESTINATION'
  constructor() {
    super(DESTINATION_REFUSED)
  }
}

type Agents = { http: http.Agent; https: https.Agent }

/** A call refused by a kept-open connection the receiver had closed meanwhile. */
class StaleConnection extends Error {
  readonly code: string | undefined
  constructor(readonly original: Error) {
    super(original.message)
    this.code = (original as { code?: string }).code
  }
}

/**
 * Makes one webhook call (got) under the destination policy: the host is judged before
 * connecting when it is a literal address, and every address a name resolves to is judged at
 * connect time, so a name that later resolves to a forbidden address is still caught. A
 * redirect is never followed; only the first 500 characters of an answer are read; the 10 s
 * limit runs on the clock so tests can move time past it.
 */
export class DeliveryClient {
  /**
   * Connections are kept open between calls to the same receiver: a new TCP (and TLS) handshake
   * per delivery would cost more than the call. Every new connection is judged at connect time.
   */
  readonly #agents: Agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) }

  constructor(
    private policy: DestinationPolicy,
    private clock: Clock,
    /** Name resolution; tests give a fixed table to prove a name is judged on what it resolves to. */
    private resolve: typeof dns.lookup = dns.lookup
  ) {}

  /** `stop` abandons the call (the gateway is stopping); its outcome is then not an answer. */
  async call(call: OutgoingCall, stop?: AbortSignal): Promise<CallOutcome> {
    const startedAt = this.clock.nowMs()
    const finish = (outcome: Omit<CallOutcome, 'durationMs'>): CallOutcome => ({ ...outcome, durationMs: this.clock.nowMs() - startedAt })

    const host = this.#hostOf(call.url)
    const verdict = host === null ? { allowed: false as const, reason: 'invalid URL' } : this.policy.judgeHost(host)
    if (verdict !== 'resolve' && !verdict.allowed) return finish({ ok: false, httpStatus: null, answer: null, error: DESTINATION_REFUSED })

    const abort = new AbortController()
    const abandon = () => abort.abort()
    stop?.addEventListener('abort', abandon)
    let timedOut = false
    const timer = this.clock.setTimer(ATTEMPT_TIME_LIMIT_MS, () => {
      timedOut = true
      abort.abort()
    })
    try {
      const { status, answer } = await this.#send(call, abort.signal, this.#agents).catch((error) => {
        // A kept-open connection the receiver closed just as the call went out (its idle
        // timeout): once more, on a connection of its own (the pool may hold more stale ones),
        // within the same time limit. Deliveries are at least once: a receiver that did get
        // the first call sees the same X-Delivery-Id twice.
        if (error instanceof StaleConnection && !abort.signal.aborted) return this.#send(call, abort.signal, false)
        throw error
      })
      return finish({ ok: status >= 200 && status < 300, httpStatus: status, answer, error: null })
    } catch (error) {
      return finish({ ok: false, httpStatus: null, answer: null, error: timedOut ? 'timeout: no answer within 10 s' : describeNetworkError(error) })
    } finally {
      timer.cancel()
      stop?.removeEventListener('abort', abandon)
    }
  }

  /** Closes the connections kept open (the gateway is stopping). */
  close(): void {
    this.#agents.http.destroy()
    this.#agents.https.destroy()
  }

  #hostOf(url: string): string | null {
    try {
      return new URL(url).hostname
    } catch {
      return null
    }
  }

  /** Resolves like the system does, then keeps only the addresses the policy allows. */
  #lookup: LookupFunction = (hostname, options, callback) => {
    this.resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0)
      const allowed = (addresses as dns.LookupAddress[]).filter((entry) => this.policy.judgeAddress(entry.address).allowed)
      if (!allowed.length) return callback(new RefusedDestination(), '', 0)
      if (options.all) return (callback as (error: null, addresses: dns.LookupAddress[]) => void)(null, allowed)
      callback(null, allowed[0].address, allowed[0].family)
    })
  }

  #send(call: OutgoingCall, signal: AbortSignal, agents: Agents | false): Promise<{ status: number; answer: string }> {
    return new Promise((resolve, reject) => {
      const stream = got.stream(call.url, {
        method: call.method as Method,
        headers: Object.fromEntries([['user-agent', 'sms-gateway-webhooks'], ...call.headers]),
        body: call.body,
        dnsLookup: this.#lookup,
        // false: a new connection, closed after the call.
        agent: agents ? agents : { http: new http.Agent({ keepAlive: false }), https: new https.Agent({ keepAlive: false }) },
        followRedirect: false,
        throwHttpErrors: false,
        retry: { limit: 0 },
        decompress: false,
        signal,
      })
      const chunks: Buffer[] = []
      let bytes = 0
      let status = 0
      const done = () => {
        stream.destroy()
        const text = Buffer.concat(chunks).toString('utf8')
        resolve({ status, answer: [...text].slice(0, ANSWER_CHARACTERS_KEPT).join('') })
      }
      stream.on('response', (response) => {
        status = response.statusCode
        // The socket is judged once more now that it is connected: the address it reached.
        const remote = response.socket?.remoteAddress
        if (remote && !this.policy.judgeAddress(remote).allowed) {
          stream.destroy()
          return reject(new RefusedDestination())
        }
      })
      stream.on('data', (chunk: Buffer) => {
        if (bytes >= ANSWER_BYTES_READ) return
        chunks.push(chunk)
        bytes += chunk.length
        if (bytes >= ANSWER_BYTES_READ) done()
      })
      stream.on('end', done)
      stream.on('error', (error) => {
        if (status) return done()
        const code = (error as { code?: string }).code
        reject(stream.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE') ? new StaleConnection(error) : error)
      })
    })
  }
}

/** A short, safe description of a failed connection: the code, never a URL's secrets. */
function describeNetworkError(error: unknown): string {
  if (error instanceof RefusedDestination) return DESTINATION_REFUSED
  const cause = error as { code?: string; cause?: { code?: string } }
  if (cause?.cause instanceof RefusedDestination || cause?.code === 'EDESTINATION') return DESTINATION_REFUSED
  const code = cause?.code && cause.code !== 'ERR_GOT_REQUEST_ERROR' ? cause.code : cause?.cause?.code
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    ENOTFOUND: 'name not found',
    EAI_AGAIN: 'name resolution failed',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    ETIMEDOUT: 'connection timed out',
    EPROTO: 'TLS handshake failed',
    CERT_HAS_EXPIRED: 'TLS certificate expired',
    DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate is self-signed',
    ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host',
  }
  if (code && known[code]) return known[code]
  return code ? `network error (${code})` : 'network error'
}
