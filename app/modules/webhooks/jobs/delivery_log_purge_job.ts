import type { Database } from '@adonisjs/lucid/database'
import type { JobDefinition } from '#core/jobs/job_runner'
import { affectedRows } from '#core/database/affected_rows'

export const DELIVERY_LOG_PURGE_JOB = 'webhooks.delivery-log-purge'
/** Finished deliveries stay in the log this long; pending ones stay until they finish. */
export const DELIVERY_LOG_KEPT_DAYS = 30
const ROWS_PER_STATEMENT = 5000

/**
 * The delivery log would grow with every event: finished deliveries older than 30 days are
 * deleted once an hour, in slices, so the purge never holds the database for long.
 */
export function deliveryLogPurgeJob(db: () => Promise<Database>): JobDefinition {
  return {
    name: DELIVERY_LOG_PURGE_JOB,
    async run(now) {
      const connection = await db()
      const before = new Date(now.getTime() - DELIVERY_LOG_KEPT_DAYS * 86_400_000).toISOString()
      for (;;) {
        const oldest = connection
          .from('webhook_deliveries')
          .select('id')
          .whereNot('status', 'pending')
          .where('created_at', '<', before)
          .orderBy('created_at')
          .orderBy('id')
          .limit(ROWS_PER_STATEMENT)
        const deleted = await connection.from('webhook_deliveries').whereIn('id', oldest).delete()
        if (affectedRows(deleted) < ROWS_PER_STATEMENT) break
      }
      return new Date(now.getTime() + 3_600_000)
    },
  }
}
