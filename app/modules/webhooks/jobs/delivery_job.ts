import type { JobDefinition } from '#core/jobs/job_runner'
import { JobWake } from '#core/jobs/job_wake'
import type { DeliveryWorker } from '#modules/webhooks/services/delivery_worker'

export const DELIVERY_JOB = 'webhooks.deliveries'

/** Starts the due webhook deliveries; due again at the next retry time or when woken. */
export function deliveryJob(worker: () => Promise<DeliveryWorker>): JobDefinition {
  return { name: DELIVERY_JOB, run: async (now) => (await worker()).pass(now) }
}

/** Makes the delivery job due when there is something to send (core's JobWake). */
export class DeliveryWake extends JobWake {
  protected readonly job = DELIVERY_JOB
}
