import { inject } from '@adonisjs/core'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { databaseRefusal } from '#core/database/database_refusal'
import type { KnownKey } from '#modules/auth/services/api_key_cache'
import { ApiKeyStore } from '#modules/auth/stores/api_key_store'

const MINUTE_MS = 60_000
const DAY_MS = 86_400_000

/** Per-key call counts of the current minute (a container singleton). */
export class MinuteWindows {
  readonly byKey = new Map<number, { window: number; count: number }>()
}

export interface RateVerdict {
  /** X-RateLimit-* headers: present whenever the key has a per-minute limit. */
  headers: Record<string, string>
  refusal: ApiError | null
}

/**
 * A key's `callsPerMinute` (fixed window on the clock minute) and `callsPerDay` (UTC day,
 * counted in SQLite so the count survives a restart). Every call counts, refused ones too
 * (docs/api-conventions.md, Rate limits: "A refused call still counts").
 */
@inject()
export class KeyRateLimiter {
  constructor(
    private clock: Clock,
    private windows: MinuteWindows,
    private keys: ApiKeyStore
  ) {}

  async count(key: KnownKey): Promise<RateVerdict> {
    const now = this.clock.nowMs()
    const headers: Record<string, string> = {}
    let refusal: ApiError | null = null

    if (key.callsPerMinute) {
      const window = Math.floor(now / MINUTE_MS)
      const entry = this.windows.byKey.get(key.id)
      const current = entry && entry.window === window ? entry : { window, count: 0 }
      current.count++
      this.windows.byKey.set(key.id, current)
      const resetMs = (window + 1) * MINUTE_MS
      headers['X-RateLimit-Limit'] = String(key.callsPerMinute)
      headers['X-RateLimit-Remaining'] = String(Math.max(0, key.callsPerMinute - current.count))
      headers['X-RateLimit-Reset'] = String(resetMs / 1000)
      if (current.count > key.callsPerMinute) {
        refusal = rateLimited('callsPerMinute', key.callsPerMinute, resetMs - now)
      }
    }

    if (key.callsPerDay) {
      const day = new Date(now).toISOString().slice(0, 10)
      const calls = await this.#countToday(key.id, day)
      if (!refusal && calls > key.callsPerDay) {
        const nextDayMs = (Math.floor(now / DAY_MS) + 1) * DAY_MS
        refusal = rateLimited('callsPerDay', key.callsPerDay, nextDayMs - now)
      }
    }
    return { headers, refusal }
  }

  /**
   * The key's calls today, this one included; 0 when the count cannot be written (a full disk,
   * another program's lock): the call goes on uncounted rather than a read being refused.
   */
  async #countToday(keyId: number, day: string): Promise<number> {
    try {
      return await this.keys.countCall(keyId, day)
    } catch (error) {
      if (databaseRefusal(error)) return 0
      throw error
    }
  }
}

function rateLimited(limit: 'callsPerMinute' | 'callsPerDay', value: number, waitMs: number): ApiError {
  const retryAfter = String(Math.max(1, Math.ceil(waitMs / 1000)))
  const what = limit === 'callsPerMinute' ? 'per-minute limit' : 'daily quota (UTC day)'
  return new ApiError('RATE_LIMITED', `This API key is over its ${what}; retry after ${retryAfter} s`, { limit, value }, {
    'Retry-After': retryAfter,
  })
}
