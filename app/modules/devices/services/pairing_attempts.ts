import { inject } from '@adonisjs/core'
import limiter from '@adonisjs/limiter/services/main'
import { errors as limiterErrors, type Limiter } from '@adonisjs/limiter'
import { ApiError } from '#core/http/api_error'

/**
 * Wrong pairing codes per network address (a container singleton): an @adonisjs/limiter
 * limiter (config/limiter.ts), 5 failures in a window of 10 minutes opened by the first one.
 */
export class PairingFailures {
  readonly limiter: Limiter = limiter.use('memory', { requests: 5, duration: '10 mins' })

  async clear() {
    await this.limiter.clear()
  }
}

/**
 * The pairing code is the only credential of POST /devices/pair, so guessing is throttled: 5
 * wrong codes from one network address within 10 minutes, and it must wait for the window's end.
 * A try takes its point BEFORE the code is looked up and a right code gives it back: checking
 * first and counting after let a burst of parallel guesses all pass the check.
 */
@inject()
export class PairingAttempts {
  constructor(private failures: PairingFailures) {}

  /** Counts a try as wrong until it proves right; refuses it when the address used its tries. */
  async take(ip: string): Promise<void> {
    try {
      await this.failures.limiter.consume(keyOf(ip))
    } catch (error) {
      if (!(error instanceof limiterErrors.E_TOO_MANY_REQUESTS)) throw error
      const retryAfter = Math.max(1, error.response.availableIn)
      throw new ApiError('PAIRING_THROTTLED', `Too many wrong pairing codes; retry after ${retryAfter} s`, undefined, { 'Retry-After': String(retryAfter) })
    }
  }

  /** The code was right (or the try never reached the code): it does not count. */
  async giveBack(ip: string): Promise<void> {
    await this.failures.limiter.decrement(keyOf(ip))
  }
}

const keyOf = (ip: string) => `pairing:${ip}`
