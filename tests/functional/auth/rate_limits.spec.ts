import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { ApiKeyService } from '#modules/auth/services/api_key_service'
import { ApiKeyCache } from '#modules/auth/services/api_key_cache'
import { MinuteWindows } from '#modules/auth/services/key_rate_limiter'
import { useManualClock } from '#tests/helpers/clock'

const START = Date.parse('2026-08-10T23:58:20.000Z')

test.group('Per-key rate limits and daily quotas', (group) => {
  let clock: ReturnType<typeof useManualClock>['clock']
  let keyNumber = 0

  group.each.setup(() => {
    const manual = useManualClock(new Date(START))
    clock = manual.clock
    return manual.restore
  })

  async function keyWith(limits: { callsPerMinute?: number; callsPerDay?: number }) {
    const keys = await app.container.make(ApiKeyService)
    return (await keys.create({ name: `limited ${++keyNumber}`, scope: 'read', ...limits }, null)).secret
  }

  test('at the per-minute limit edge: headers exact on every answer, the next call 429 with Retry-After', async ({ client, assert }) => {
    const secret = await keyWith({ callsPerMinute: 3 })
    const reset = String(Date.parse('2026-08-10T23:59:00.000Z') / 1000)
    for (const remaining of ['2', '1', '0']) {
      const response = await client.get('/api/v1/activity').header('x-api-key', secret)
      response.assertStatus(200)
      assert.equal(response.header('x-ratelimit-limit'), '3')
      assert.equal(response.header('x-ratelimit-remaining'), remaining)
      assert.equal(response.header('x-ratelimit-reset'), reset)
    }
    await clock.advance(15_000) // 23:58:35
    const refused = await client.get('/api/v1/activity').header('x-api-key', secret)
    refused.assertStatus(429)
    assert.equal(refused.body().error.code, 'RATE_LIMITED')
    assert.equal(refused.header('retry-after'), '25')
    assert.equal(refused.header('x-ratelimit-limit'), '3')
    assert.equal(refused.header('x-ratelimit-remaining'), '0')
    assert.equal(refused.header('x-ratelimit-reset'), reset)

    // The next minute opens a fresh window; the refused call counted in the old one only.
    await clock.advanceTo(new Date('2026-08-10T23:59:00.000Z'))
    const next = await client.get('/api/v1/activity').header('x-api-key', secret)
    next.assertStatus(200)
    assert.equal(next.header('x-ratelimit-remaining'), '2')
    assert.equal(next.header('x-ratelimit-reset'), String(Date.parse('2026-08-11T00:00:00.000Z') / 1000))
  })

  test('the limit headers ride on error answers too, and refused calls count', async ({ client, assert }) => {
    const secret = await keyWith({ callsPerMinute: 2 })
    const wrongScope = await client.get('/api/v1/logs/technical').header('x-api-key', secret)
    wrongScope.assertStatus(403)
    assert.equal(wrongScope.header('x-ratelimit-remaining'), '1')
    const badInput = await client.get('/api/v1/activity').qs({ limit: 0 }).header('x-api-key', secret)
    badInput.assertStatus(400)
    assert.equal(badInput.header('x-ratelimit-remaining'), '0')
    ;(await client.get('/api/v1/activity').header('x-api-key', secret)).assertStatus(429)
    ;(await client.get('/api/v1/activity').header('x-api-key', secret)).assertStatus(429)
  })

  test('a key without a per-minute limit carries no X-RateLimit headers', async ({ client, assert }) => {
    const secret = await keyWith({})
    const response = await client.get('/api/v1/activity').header('x-api-key', secret)
    assert.isUndefined(response.header('x-ratelimit-limit'))
  })

  test('the daily quota counts per UTC day, survives a restart, and reopens at midnight UTC', async ({ client, assert }) => {
    const secret = await keyWith({ callsPerDay: 2 })
    ;(await client.get('/api/v1/activity').header('x-api-key', secret)).assertStatus(200)
    ;(await client.get('/api/v1/activity').header('x-api-key', secret)).assertStatus(200)

    // A restart forgets everything held in memory; the day's count is in SQLite.
    ;(await app.container.make(ApiKeyCache)).clear()
    ;(await app.container.make(MinuteWindows)).byKey.clear()

    const refused = await client.get('/api/v1/activity').header('x-api-key', secret)
    refused.assertStatus(429)
    assert.equal(refused.body().error.code, 'RATE_LIMITED')
    assert.equal(refused.body().error.details.limit, 'callsPerDay')
    // 23:58:20 → midnight UTC is 100 s away.
    assert.equal(refused.header('retry-after'), '100')
    const row = await db.from('api_key_daily_usage').where('day', '2026-08-10').orderBy('calls', 'desc').first()
    assert.equal(row.calls, 3, 'the refused call counted too')

    await clock.advanceTo(new Date('2026-08-11T00:00:00.000Z'))
    ;(await client.get('/api/v1/activity').header('x-api-key', secret)).assertStatus(200)
  })

  test('the per-minute refusal wins when both limits are passed, with its own Retry-After', async ({ client, assert }) => {
    const secret = await keyWith({ callsPerMinute: 1, callsPerDay: 1 })
    ;(await client.get('/api/v1/activity').header('x-api-key', secret)).assertStatus(200)
    const refused = await client.get('/api/v1/activity').header('x-api-key', secret)
    refused.assertStatus(429)
    assert.equal(refused.body().error.details.limit, 'callsPerMinute')
    assert.equal(refused.header('retry-after'), '40')
  })
})
