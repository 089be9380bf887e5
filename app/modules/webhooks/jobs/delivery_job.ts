import type { JobDefinition, JobRunner } from '#core/jobs/job_runner'
import type { DeliveryWorker } from '#modules/webhooks/services/delivery_worker'

export const DELIVERY_JOB = 'webhooks.deliveries'

/** Starts the due webhook deliveries; due again at the next retry time or when woken. */
export function deliveryJob(worker: () => Promise<DeliveryWorker>): JobDefinition {
  return { name: DELIVERY_JOB, run: async (now) => (await worker()).pass(now) }
}

/**
 * Makes the delivery job due (now, or at a given time) when there is something to send. The
 * provider binds it with the runner resolved at each wake: jobs run with the HTTP server only,
 * and a test puts its own runner (on a ManualClock) in the container.
 */
export class DeliveryWake {
  constructor(private runner: () => Promise<JobRunner>) {}

  wake(at?: Date): void {
    void this.runner().then((runner) => {
      if (runner.started && runner.has(DELIVERY_JOB)) runner.wake(DELIVERY_JOB, at)
    })
  }
}
