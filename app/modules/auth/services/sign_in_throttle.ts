import { inject } from '@adonisjs/core'
import { createHash } from 'node:crypto'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'

/** Failures are forgotten this long after the last one. */
const FAILURE_MEMORY_MS = 15 * 60_000
/** Failures allowed back to back before each next try must wait. */
const FREE_FAILURES = 3
/** From this many failures the address is refused for LOCK_MS. */
const LOCK_AFTER_FAILURES = 10
const LOCK_MS = 15 * 60_000

interface Attempts {
  failures: number
  lastFailureAt: number
}

/** Failed sign-ins per address (hashed), shared by every request (a container singleton). */
export class SignInAttempts {
  readonly byAddress = new Map<string, Attempts>()
}

/**
 * Repeated failed sign-ins for an address are slowed, then refused: after 3 failures each next
 * try must wait 1 s, 2 s, 4 s... after the last failure; from 10 failures the address is
 * refused for 15 minutes. A refused try is answered 429 RATE_LIMITED with Retry-After and is
 * not checked against the password. A success forgets the failures.
 */
@inject()
export class SignInThrottle {
  constructor(
    private clock: Clock,
    private attempts: SignInAttempts
  ) {}

  assertMayTry(email: string): void {
    const entry = this.#current(email)
    if (!entry || entry.failures < FREE_FAILURES) return
    const wait =
      entry.failures >= LOCK_AFTER_FAILURES ? LOCK_MS : 1000 * 2 ** (entry.failures - FREE_FAILURES)
    const left = entry.lastFailureAt + wait - this.clock.nowMs()
    if (left > 0) {
      const retryAfter = String(Math.ceil(left / 1000))
      throw new ApiError('RATE_LIMITED', `Too many failed sign-ins for this address; retry after ${retryAfter} s`, undefined, {
        'Retry-After': retryAfter,
      })
    }
  }

  recordFailure(email: string): void {
    const entry = this.#current(email) ?? { failures: 0, lastFailureAt: 0 }
    entry.failures++
    entry.lastFailureAt = this.clock.nowMs()
    this.attempts.byAddress.set(keyOf(email), entry)
  }

  recordSuccess(email: string): void {
    this.attempts.byAddress.delete(keyOf(email))
  }

  #current(email: string): Attempts | null {
    const entry = this.attempts.byAddress.get(keyOf(email))
    if (!entry) return null
    const memory = entry.failures >= LOCK_AFTER_FAILURES ? LOCK_MS : FAILURE_MEMORY_MS
    if (this.clock.nowMs() - entry.lastFailureAt > memory) {
      this.attempts.byAddress.delete(keyOf(email))
      return null
    }
    return entry
  }
}

/** The address itself is not kept in memory in clear. */
function keyOf(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('hex')
}
