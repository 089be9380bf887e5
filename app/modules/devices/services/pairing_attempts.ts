import { inject } from '@adonisjs/core'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'

const WINDOW_MS = 10 * 60_000
const ALLOWED_FAILURES = 5

/** Failed pairing attempts per network address (a container singleton). */
export class PairingFailures {
  readonly byIp = new Map<string, { failures: number; firstAt: number }>()
}

/**
 * The pairing code is the only credential of POST /devices/pair, so guessing is throttled: 5
 * wrong codes from one network address within 10 minutes, and it must wait for the window's end.
 */
@inject()
export class PairingAttempts {
  constructor(
    private clock: Clock,
    private failures: PairingFailures
  ) {}

  assertMayTry(ip: string): void {
    const entry = this.#current(ip)
    if (entry && entry.failures >= ALLOWED_FAILURES) {
      const retryAfter = String(Math.ceil((entry.firstAt + WINDOW_MS - this.clock.nowMs()) / 1000))
      throw new ApiError('PAIRING_THROTTLED', `Too many wrong pairing codes; retry after ${retryAfter} s`, undefined, { 'Retry-After': retryAfter })
    }
  }

  recordFailure(ip: string): void {
    const entry = this.#current(ip) ?? { failures: 0, firstAt: this.clock.nowMs() }
    entry.failures++
    this.failures.byIp.set(ip, entry)
  }

  #current(ip: string) {
    const entry = this.failures.byIp.get(ip)
    if (entry && this.clock.nowMs() - entry.firstAt >= WINDOW_MS) {
      this.failures.byIp.delete(ip)
      return null
    }
    return entry ?? null
  }
}
