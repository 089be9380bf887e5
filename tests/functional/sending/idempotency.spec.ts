import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { ApiKeyService } from '#modules/auth/services/api_key_service'
import { IdempotentRequests } from '#core/idempotency/idempotent_requests'
import { useManualClock } from '#tests/helpers/clock'
import { asBrowser, signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging, messageCount, sendAs } from '#tests/helpers/messages'

function keyed(client: any, key: string, body: unknown, apiKey = testKeys.send) {
  return client.post('/api/v1/messages').header('x-api-key', apiKey).header('idempotency-key', key).json(body)
}

test.group('Idempotency-Key', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearMessaging())

  test('the same key and body answer the original answer with Idempotency-Replayed and queue nothing more', async ({ client, assert }) => {
    const body = { to: ['+33612345678', '+447911123456'], body: 'Order shipped' }
    const first = await keyed(client, 'order-4711-shipped', body)
    first.assertStatus(202)
    assert.isUndefined(first.header('idempotency-replayed'))
    const again = await keyed(client, 'order-4711-shipped', { body: 'Order shipped', to: ['+33612345678', '+447911123456'] })
    again.assertStatus(202)
    assert.equal(again.header('idempotency-replayed'), 'true')
    assert.deepEqual(again.body(), first.body())
    assert.equal(await messageCount(), 2)
  })

  test('the same key with a different body is 409 IDEMPOTENCY_CONFLICT', async ({ client, assert }) => {
    await keyed(client, 'conflicting-key', { to: '+33612345678', body: 'one' })
    const other = await keyed(client, 'conflicting-key', { to: '+33612345678', body: 'two' })
    other.assertStatus(409)
    assert.equal(other.body().error.code, 'IDEMPOTENCY_CONFLICT')
    assert.equal(await messageCount(), 1)
  })

  test('an error answer does not consume the key', async ({ client, assert }) => {
    const refused = await keyed(client, 'retry-after-fix', { to: 'garbage', body: 'x' })
    refused.assertStatus(400)
    const fixed = await keyed(client, 'retry-after-fix', { to: '+33612345678', body: 'x' })
    fixed.assertStatus(202)
    assert.isUndefined(fixed.header('idempotency-replayed'))
  })

  test('keys belong to the caller: two keys or accounts may use the same value independently', async ({ client, assert }) => {
    const other = (await (await app.container.make(ApiKeyService)).create({ name: `other sender ${Date.now()}`, scope: 'send' }, null)).secret
    const body = { to: '+33612345678', body: 'same' }
    ;(await keyed(client, 'shared-value-1', body)).assertStatus(202)
    const second = await keyed(client, 'shared-value-1', { ...body, body: 'different body' }, other)
    second.assertStatus(202)
    assert.isUndefined(second.header('idempotency-replayed'))

    const operator = await signInAs(client, 'operator')
    const bySession = await asBrowser(client.post('/api/v1/messages'), operator).header('idempotency-key', 'shared-value-1').json(body)
    bySession.assertStatus(202)
    assert.isUndefined(bySession.header('idempotency-replayed'))
    assert.equal(await messageCount(), 3)
  })

  test('a key shorter than 8 or longer than 128 characters is VALIDATION_ERROR', async ({ client, assert }) => {
    for (const key of ['short', 'k'.repeat(129)]) {
      const response = await keyed(client, key, { to: '+33612345678', body: 'x' })
      response.assertStatus(400)
      assert.equal(response.body().error.details[0].field, 'Idempotency-Key')
    }
    ;(await keyed(client, 'k'.repeat(8), { to: '+33612345678', body: 'x' })).assertStatus(202)
    ;(await keyed(client, 'k'.repeat(128), { to: '+33612345678', body: 'x' })).assertStatus(202)
  })

  test('twenty identical requests at once queue exactly one set of messages', async ({ client, assert }) => {
    const body = { to: ['+33612345678', '+447911123456', '+14155552671'], body: 'Flash sale' }
    const answers = await Promise.all(Array.from({ length: 20 }, () => keyed(client, 'concurrent-burst-1', body)))
    for (const answer of answers) answer.assertStatus(202)
    assert.equal(await messageCount(), 3)
    const originals = answers.filter((answer) => answer.header('idempotency-replayed') === undefined)
    assert.lengthOf(originals, 1)
    const ids = new Set(answers.map((answer) => answer.body().accepted.map((message: any) => message.id).join()))
    assert.equal(ids.size, 1)
  })

  test('after 24 hours the key is free again, and expired keys are purged', async ({ client, assert }) => {
    const { clock, restore } = useManualClock('2026-10-01T08:00:00.000Z')
    try {
      const body = { to: '+33612345678', body: 'daily digest' }
      ;(await keyed(client, 'daily-digest-key', body)).assertStatus(202)
      await clock.advance(24 * 3_600_000 - 1000)
      assert.equal((await keyed(client, 'daily-digest-key', body)).header('idempotency-replayed'), 'true')
      await clock.advance(2000)
      const fresh = await keyed(client, 'daily-digest-key', body)
      fresh.assertStatus(202)
      assert.isUndefined(fresh.header('idempotency-replayed'))
      assert.equal(await messageCount(), 2)

      await clock.advance(25 * 3_600_000)
      const purged = await (await app.container.make(IdempotentRequests)).purgeExpired()
      assert.equal(purged, 1)
      const left = await db.from('idempotency_keys').count('* as total').first()
      assert.equal(Number(left.total), 0)
    } finally {
      restore()
    }
  })

  test('a replay of a shortenLinks send returns the queued messages carrying the short links', async ({ client, assert }) => {
    const body = { to: '+33612345678', body: 'Track it: https://shop.example/track/42', shortenLinks: true }
    const first = await keyed(client, 'tracking-link-1', body)
    first.assertStatus(202)
    const sentBody = first.body().accepted[0].body
    assert.notInclude(sentBody, 'shop.example')
    const replay = await keyed(client, 'tracking-link-1', body)
    assert.equal(replay.header('idempotency-replayed'), 'true')
    assert.equal(replay.body().accepted[0].body, sentBody)
    const links = await db.from('links').count('* as total').first()
    assert.equal(Number(links.total), 1)
  })

  test('without a key, two identical sends queue twice', async ({ client, assert }) => {
    await sendAs(client, { to: '+33612345678', body: 'x' })
    await sendAs(client, { to: '+33612345678', body: 'x' })
    assert.equal(await messageCount(), 2)
  })
})
