import { inject } from '@adonisjs/core'
import { Clock } from '#core/time/clock'
import { DeliveryStore } from '#modules/webhooks/stores/delivery_store'
import { WebhookStore } from '#modules/webhooks/stores/webhook_store'
import type { FailingDeliveriesAnswer } from '#modules/webhooks/schemas'

/** The window the "failed recently" count looks back over. */
export const FAILING_WINDOW_MS = 24 * 60 * 60 * 1000

/**
 * How many webhook deliveries are failing now, in three counts that each stay cheap on a log of
 * millions of rows: deliveries waiting for a retry (the pending rows, few, on their partial
 * index), deliveries created in the last 24 hours that ended failed (one day of the log's
 * created_at index), and webhooks the gateway switched off after repeated failures.
 */
@inject()
export class FailingDeliveries {
  constructor(
    private clock: Clock,
    private deliveries: DeliveryStore,
    private webhooks: WebhookStore
  ) {}

  async summary(): Promise<FailingDeliveriesAnswer> {
    const now = this.clock.now()
    const since = new Date(now.getTime() - FAILING_WINDOW_MS).toISOString()
    const [retrying, failedRecently, switchedOff] = await Promise.all([
      this.deliveries.retryingCount(),
      this.deliveries.failedSinceCount(since),
      this.webhooks.switchedOffCount(),
    ])
    return { retrying, failedRecently, switchedOff, since }
  }
}
