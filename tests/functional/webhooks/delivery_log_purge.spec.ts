import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import logger from '@adonisjs/core/services/logger'
import { JobRunner } from '#core/jobs/job_runner'
import { useManualClock } from '#tests/helpers/clock'
import { clearWebhooks } from '#tests/helpers/webhooks'
import { deliveryLogPurgeJob } from '#modules/webhooks/jobs/delivery_log_purge_job'
import { DeliveryStore } from '#modules/webhooks/stores/delivery_store'

test.group('Delivery log purge', (group) => {
  group.each.setup(() => clearWebhooks())

  test('finished deliveries older than 30 days go; recent ones and pending ones stay', async ({ assert }) => {
    const { clock, restore } = useManualClock('2026-09-01T00:00:00.000Z')
    const row = (id: string, status: string, createdAt: string) => ({
      delivery_id: id,
      webhook_id: null,
      rule_id: 'r1',
      rule_name: 'Rule',
      rule_url: 'https://example.com/hook',
      rule_secret_sealed: 'x',
      target_key: 'rule:r1',
      event: 'rule.triggered',
      body: '{}',
      status,
      attempts: 1,
      created_at: createdAt,
      updated_at: createdAt,
    })
    await db.table('webhook_deliveries').multiInsert([
      row('old-success', 'success', '2026-07-01T00:00:00.000Z'),
      row('old-failed', 'failed', '2026-07-31T23:59:59.000Z'),
      row('old-pending', 'pending', '2026-07-01T00:00:00.000Z'),
      row('recent', 'success', '2026-08-02T00:00:00.000Z'),
    ])
    await db.from('scheduled_jobs').delete()
    const runner = new JobRunner(clock, db, logger)
    runner.register(deliveryLogPurgeJob(new DeliveryStore()))
    try {
      await runner.start()
      await runner.whenIdle()
      const left = (await db.from('webhook_deliveries').orderBy('delivery_id').select('delivery_id')).map((entry) => entry.delivery_id)
      assert.deepEqual(left, ['old-pending', 'recent'])
      // Once an hour: a month later the recent one goes too.
      await clock.advance(31 * 86_400_000)
      await runner.whenIdle()
      assert.deepEqual((await db.from('webhook_deliveries').select('delivery_id')).map((entry) => entry.delivery_id), ['old-pending'])
    } finally {
      await runner.stop()
      restore()
    }
  })
})
