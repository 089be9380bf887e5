import type { JobDefinition } from '#core/jobs/job_runner'
import type { IdempotentRequests } from '#core/idempotency/idempotent_requests'

/**
 * The name its due time is kept under in `scheduled_jobs`, from when idempotency was the
 * messages module's: kept, so an existing database goes on with its row (no second row, no
 * orphan left behind).
 */
export const IDEMPOTENCY_EXPIRY_JOB = 'messages.idempotency-expiry'

/** Keys live 24 hours (docs/sending.md, Idempotency); expired ones are purged every hour. */
export function idempotencyExpiryJob(requests: () => Promise<IdempotentRequests>): JobDefinition {
  return {
    name: IDEMPOTENCY_EXPIRY_JOB,
    async run(now) {
      await (await requests()).purgeExpired()
      return new Date(now.getTime() + 3_600_000)
    },
  }
}
