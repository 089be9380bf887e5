import { createHash } from 'node:crypto'
import { inject } from '@adonisjs/core'
import limiter from '@adonisjs/limiter/services/main'
import type { Limiter } from '@adonisjs/limiter'
import { ApiError } from '#core/http/api_error'

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

type Kind = keyof typeof policies

/** Failures are counted in windows of this length, opened by a key's first failure. */
const MEMORY = '15 mins'

/**
 * Failed sign-ins, shared by every request (a container singleton): two @adonisjs/limiter
 * limiters (config/limiter.ts), failures counted per key and the wait each key is under, and
 * the queue that makes "check, then count" one step for parallel tries. Keys are hashed.
 */
export class SignInAttempts {
  readonly failures: Limiter = limiter.use('memory', { requests: 50, duration: MEMORY })
  readonly waits: Limiter = limiter.use('memory', { requests: 1, duration: MEMORY })
  #queue: Promise<unknown> = Promise.resolve()

  /** Runs `step` after every step started before it, one at a time. */
  inTurn<T>(step: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(step)
    this.#queue = result.catch(() => {})
    return result
  }

  async clear() {
    await Promise.all([this.failures.clear(), this.waits.clear()])
  }
}

/**
 * Repeated failed sign-ins are slowed, then refused with 429 RATE_LIMITED and Retry-After. A try
 * counts as a failure before the password is checked (a success then forgets it), so parallel
 * guesses are counted as they arrive, not after the slow password check. Time comes from the
 * limiters' store, which reads the gateway's Clock.
 */
@inject()
export class SignInThrottle {
  constructor(private attempts: SignInAttempts) {}

  /**
   * Refuses the try if a wait applies, otherwise counts it as a failure until it succeeds;
   * returns what `succeeded` needs to undo the count.
   */
  begin(email: string, ip: string): Promise<SignInTry> {
    const { failures, waits } = this.attempts
    const keys = keysOf(email, ip)
    const kinds = Object.keys(keys) as Kind[]
    return this.attempts.inTurn(async () => {
      let longest = 0
      for (const kind of kinds) longest = Math.max(longest, await waits.availableIn(keys[kind]))
      if (longest > 0) {
        const retryAfter = String(longest)
        throw new ApiError('RATE_LIMITED', `Too many failed sign-ins; retry after ${retryAfter} s`, undefined, { 'Retry-After': retryAfter })
      }
      let failuresBefore = 0
      for (const kind of kinds) {
        const { consumed } = await failures.increment(keys[kind])
        if (kind === 'addressFromIp') failuresBefore = consumed - 1
        const waitMs = waitAfter(consumed, policies[kind])
        if (waitMs > 0) await waits.block(keys[kind], waitMs / 1000)
      }
      return { keys, failuresBefore }
    })
  }

  /**
   * The try succeeded: it was not a failure after all, and the failures of this address from
   * this network address were the owner's own typos, forgiven in every counter.
   */
  succeeded(attempt: SignInTry): Promise<void> {
    const { failures, waits } = this.attempts
    return this.attempts.inTurn(async () => {
      await failures.delete(attempt.keys.addressFromIp)
      await waits.delete(attempt.keys.addressFromIp)
      for (const kind of ['ip', 'address'] as const) {
        const key = attempt.keys[kind]
        const left = ((await failures.get(key))?.consumed ?? 0) - 1 - attempt.failuresBefore
        if (left > 0) await failures.set(key, left)
        else await failures.delete(key)
        if (left < policies[kind].free) await waits.delete(key)
      }
    })
  }
}

/** The wait (ms) before the next try once a key has this many failures; 0: none. */
function waitAfter(failures: number, policy: Policy): number {
  if (failures < policy.free) return 0
  if (policy.lockAfter !== null && failures >= policy.lockAfter) return policy.lockMs
  return Math.min(policy.maxWaitMs, 1000 * 2 ** (failures - policy.free))
}

export interface SignInTry {
  keys: ReturnType<typeof keysOf>
  /** Failures of this address from this network address before this try. */
  failuresBefore: number
}

function keysOf(email: string, ip: string) {
  const address = email.trim().toLowerCase()
  return {
    addressFromIp: `sign-in:${hash(`address+ip:${address}|${ip}`)}`,
    ip: `sign-in:${hash(`ip:${ip}`)}`,
    address: `sign-in:${hash(`address:${address}`)}`,
  }
}

/** Neither the address nor the network address is kept in memory in clear. */
function hash(value: string): string {
  return createHash('sha256').update(value).digest('hex')
}
