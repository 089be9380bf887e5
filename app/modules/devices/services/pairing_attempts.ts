import { inject } from '@adonisjs/core'
import limiter from '@adonisjs/limiter/services/main'
import type { Limiter } from '@adonisjs/limiter'
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
 */
@inject()
export class PairingAttempts {
  constructor(private failures: PairingFailures) {}

  async assertMayTry(ip: string): Promise<void> {
    const retryAfter = await this.failures.limiter.availableIn(keyOf(ip))
    if (retryAfter > 0) {
      throw new ApiError('PAIRING_THROTTLED', `Too many wrong pairing codes; retry after ${retryAfter} s`, undefined, { 'Retry-After': String(retryAfter) })
    }
  }

  async recordFailure(ip: string): Promise<void> {
    await this.failures.limiter.increment(keyOf(ip))
  }
}

const keyOf = (ip: string) => `pairing:${ip}`
