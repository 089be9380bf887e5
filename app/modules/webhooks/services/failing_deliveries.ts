import { inject } from '@adonisjs/core'
import db from '@adonisjs/lucid/services/db'
import { Clock } from '#core/time/clock'
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
  constructor(private clock: Clock) {}

  async summary(): Promise<FailingDeliveriesAnswer> {
    const now = this.clock.now()
    const since = new Date(now.getTime() - FAILING_WINDOW_MS).toISOString()
    const [retrying, failed, switchedOff] = await Promise.all([
      db.from('webhook_deliveries').where('status', 'pending').where('attempts', '>', 0).count('* as count').first(),
      db.from('webhook_deliveries').where('created_at', '>=', since).where('status', 'failed').count('* as count').first(),
      db.from('webhooks').where('active', 0).whereNotNull('disabled_at').count('* as count').first(),
    ])
    return {
      retrying: Number(retrying?.count ?? 0),
      failedRecently: Number(failed?.count ?? 0),
      switchedOff: Number(switchedOff?.count ?? 0),
      since,
    }
  }
}
