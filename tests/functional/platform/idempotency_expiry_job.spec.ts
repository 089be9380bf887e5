import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import logger from '@adonisjs/core/services/logger'
import { JobRunner } from '#core/jobs/job_runner'
import { IdempotentRequests } from '#core/idempotency/idempotent_requests'
import { IDEMPOTENCY_EXPIRY_JOB, idempotencyExpiryJob } from '#core/idempotency/idempotency_expiry_job'
import { useManualClock } from '#tests/helpers/clock'

test.group('Idempotency key expiry job', (group) => {
  group.each.setup(async () => {
    await db.from('idempotency_keys').delete()
    await db.from('scheduled_jobs').delete()
  })

  test('runs hourly on the clock and purges only keys past their 24 hours', async ({ assert }) => {
    const { clock, restore } = useManualClock('2026-03-10T00:00:00.000Z')
    try {
      const row = (key: string, expiresAt: string) => ({
        caller: 'api_key:1',
        key,
        request_hash: 'h',
        response_status: 202,
        response_body: '{}',
        created_at: '2026-03-09T00:00:00.000Z',
        expires_at: expiresAt,
      })
      await db.table('idempotency_keys').multiInsert([row('old-key-1', '2026-03-10T00:30:00.000Z'), row('new-key-1', '2026-03-10T05:00:00.000Z')])
      const runner = new JobRunner(clock, db, logger)
      runner.register(idempotencyExpiryJob(() => app.container.make(IdempotentRequests)))
      await runner.start()
      await runner.whenIdle()
      assert.equal((await db.from('idempotency_keys').count('* as total').first()).total, 2)
      await clock.advance(3_600_000)
      await runner.whenIdle()
      const left = await db.from('idempotency_keys').select('key')
      assert.deepEqual(left.map((entry) => entry.key), ['new-key-1'])
      assert.equal(runner.dueAt('messages.idempotency-expiry')?.toISOString(), '2026-03-10T02:00:00.000Z')
      await runner.stop()
    } finally {
      restore()
    }
  })

  test('the gateway runs it under the name existing databases recorded its due time with', async ({ assert }) => {
    // Registered by the core provider; the name is the one scheduled_jobs has held since the job was the messages module's.
    assert.equal(IDEMPOTENCY_EXPIRY_JOB, 'messages.idempotency-expiry')
    assert.isTrue((await app.container.make(JobRunner)).has(IDEMPOTENCY_EXPIRY_JOB))
  })
})
