import type { JobDefinition } from '#core/jobs/job_runner'
import type { DeliveryStore } from '#modules/webhooks/stores/delivery_store'

export const DELIVERY_LOG_PURGE_JOB = 'webhooks.delivery-log-purge'
/** Finished deliveries stay in the log this long; pending ones stay until they finish. */
export const DELIVERY_LOG_KEPT_DAYS = 30
const ROWS_PER_STATEMENT = 5000

/**
 * The delivery log would grow with every event: finished deliveries older than 30 days are
 * deleted once an hour, in slices, so the purge never holds the database for long.
 */
export function deliveryLogPurgeJob(deliveries: DeliveryStore): JobDefinition {
  return {
    name: DELIVERY_LOG_PURGE_JOB,
    async run(now) {
      const before = new Date(now.getTime() - DELIVERY_LOG_KEPT_DAYS * 86_400_000).toISOString()
      for (;;) {
        if ((await deliveries.purgeFinished(before, ROWS_PER_STATEMENT)) < ROWS_PER_STATEMENT) break
      }
      return new Date(now.getTime() + 3_600_000)
    },
  }
}
