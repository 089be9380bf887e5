import { inject } from '@adonisjs/core'
import { createHash } from 'node:crypto'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'

interface Attempts {
  failures: number
  lastFailureAt: number
}

interface Policy {
  /** Failures allowed back to back before each next try must wait 1 s, 2 s, 4 s... */
  free: number
  /** Longest wait between tries while slowed. */
  maxWaitMs: number
  /** From this many failures, refused for lockMs (null: never locked, only slowed). */
  lockAfter: number | null
  lockMs: number
}

const MINUTE = 60_000

/**
 * - An address from one network address: slowed after 3 failures, refused 15 minutes after 10.
 * - One network address, any e-mail (password spraying): slowed after 10, refused after 50.
 * - One e-mail from anywhere: only slowed (at most a minute between tries), never refused, so a
 *   stranger cannot lock the superadmin out.
 */
const policies = {
  addressFromIp: { free: 3, maxWaitMs: 15 * MINUTE, lockAfter: 10, lockMs: 15 * MINUTE },
  ip: { free: 10, maxWaitMs: 15 * MINUTE, lockAfter: 50, lockMs: 15 * MINUTE },
  address: { free: 20, maxWaitMs: MINUTE, lockAfter: null, lockMs: 0 },
} satisfies Record<string, Policy>

/** Failures are forgotten this long after the last one (or the end of a lock). */
const MEMORY_MS = 15 * MINUTE
/** Past this many remembered keys, stale ones are swept. */
const SWEEP_ABOVE = 5000

/** Failed sign-ins, shared by every request (a container singleton). Keys are hashed. */
export class SignInAttempts {
  readonly byKey = new Map<string, Attempts>()

  clear() {
    this.byKey.clear()
  }
}

/**
 * Repeated failed sign-ins are slowed, then refused with 429 RATE_LIMITED and Retry-After. A try
 * counts as a failure before the password is checked (a success then forgets it), so parallel
 * guesses are counted as they arrive, not after the slow password check.
 */
@inject()
export class SignInThrottle {
  constructor(
    private clock: Clock,
    private attempts: SignInAttempts
  ) {}

  /**
   * Refuses the try if a wait applies, otherwise counts it as a failure until it succeeds;
   * returns what `succeeded` needs to undo the count.
   */
  begin(email: string, ip: string): SignInTry {
    const keys = keysOf(email, ip)
    let longest = 0
    for (const [kind, key] of Object.entries(keys) as Array<[keyof typeof policies, string]>) {
      longest = Math.max(longest, this.#waitLeft(key, policies[kind]))
    }
    if (longest > 0) {
      const retryAfter = String(Math.ceil(longest / 1000))
      throw new ApiError('RATE_LIMITED', `Too many failed sign-ins; retry after ${retryAfter} s`, undefined, { 'Retry-After': retryAfter })
    }
    const previous = new Map(Object.values(keys).map((key) => [key, this.#current(key) && { ...this.#current(key)! }]))
    for (const key of Object.values(keys)) this.#count(key)
    if (this.attempts.byKey.size > SWEEP_ABOVE) this.#sweep()
    return { keys, previous }
  }

  /**
   * The try succeeded: it was not a failure after all, and the failures of this address from
   * this network address were the owner's own typos, forgiven in every counter.
   */
  succeeded(attempt: SignInTry): void {
    const forgiven = attempt.previous.get(attempt.keys.addressFromIp)?.failures ?? 0
    this.attempts.byKey.delete(attempt.keys.addressFromIp)
    for (const key of [attempt.keys.ip, attempt.keys.address]) {
      const before = attempt.previous.get(key)
      const failures = (before?.failures ?? 0) - forgiven
      if (before && failures > 0) this.attempts.byKey.set(key, { ...before, failures })
      else this.attempts.byKey.delete(key)
    }
  }

  #waitLeft(key: string, policy: Policy): number {
    const entry = this.#current(key)
    if (!entry || entry.failures < policy.free) return 0
    const wait =
      policy.lockAfter !== null && entry.failures >= policy.lockAfter
        ? policy.lockMs
        : Math.min(policy.maxWaitMs, 1000 * 2 ** (entry.failures - policy.free))
    return entry.lastFailureAt + wait - this.clock.nowMs()
  }

  #count(key: string) {
    const entry = this.#current(key) ?? { failures: 0, lastFailureAt: 0 }
    entry.failures++
    entry.lastFailureAt = this.clock.nowMs()
    this.attempts.byKey.set(key, entry)
  }

  #current(key: string): Attempts | null {
    const entry = this.attempts.byKey.get(key)
    if (!entry) return null
    if (this.clock.nowMs() - entry.lastFailureAt > MEMORY_MS) {
      this.attempts.byKey.delete(key)
      return null
    }
    return entry
  }

  #sweep() {
    for (const key of [...this.attempts.byKey.keys()]) this.#current(key)
  }
}

export interface SignInTry {
  keys: ReturnType<typeof keysOf>
  previous: Map<string, Attempts | null>
}

function keysOf(email: string, ip: string) {
  const address = email.trim().toLowerCase()
  return {
    addressFromIp: hash(`address+ip:${address}|${ip}`),
    ip: hash(`ip:${ip}`),
    address: hash(`address:${address}`),
  }
}

/** Neither the address nor the network address is kept in memory in clear. */
function hash(value: string): string {
  return createHash('sha256').update(value).digest('hex')
}
