import { inject } from '@adonisjs/core'
import db from '@adonisjs/lucid/services/db'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { StorageHealth } from '#core/data_folder/storage_health'
import type { HealthAnswer } from '#core/schemas'

/**
 * A database answer is trusted for this long. Monitors and load balancers may poll /health
 * thousands of times a second; asking SQLite each time cost most of the throughput
 * (bench/health.js).
 */
const PROBE_TTL_MS = 1000

let lastHealthyAt = -Infinity
let probing: Promise<void> | null = null

/**
 * GET /health: 200 once the gateway serves and its database answers. No authentication.
 * `degraded` (still 200: the gateway serves, reads work, and a restart would not help) while
 * the data folder's disk is full or another program holds the database.
 */
@inject()
export default class HealthController {
  constructor(
    private clock: Clock,
    private storage: StorageHealth
  ) {}

  async show(): Promise<HealthAnswer> {
    if (this.clock.nowMs() - lastHealthyAt >= PROBE_TTL_MS) {
      probing ??= db
        .rawQuery('select 1')
        .then(() => {
          lastHealthyAt = this.clock.nowMs()
        })
        .finally(() => {
          probing = null
        })
      try {
        await probing
      } catch {
        throw new ApiError('INTERNAL_ERROR', 'The database does not answer')
      }
    }
    const { storage, database } = this.storage.status()
    return { status: storage === 'ok' && database === 'ok' ? 'ok' : 'degraded', storage, database }
  }
}
