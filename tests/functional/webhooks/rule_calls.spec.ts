import { test } from '@japa/runner'
import { createHmac } from 'node:crypto'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { useManualClock } from '#tests/helpers/clock'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { answerStatus, clearWebhooks, deliveries, startReceiver, useWebhookEngine, type Receiver } from '#tests/helpers/webhooks'
import { RuleCalls } from '#modules/webhooks/services/rule_calls'
import type { ManualClock } from '#core/time/clock'

const START = '2026-04-10T08:00:00.000Z'
const RULE_SECRET = 'rule-secret-0123456789'

test.group('Rule calls', (group) => {
  let clock: ManualClock
  let engine: Awaited<ReturnType<typeof useWebhookEngine>>
  let target: Receiver

  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearWebhooks()
    const manual = useManualClock(START)
    clock = manual.clock
    engine = await useWebhookEngine(clock)
    target = await startReceiver()
    return async () => {
      await engine.stop()
      await target.close()
      manual.restore()
    }
  })

  async function callRule() {
    const rules = await app.container.make(RuleCalls)
    await rules.call({
      ruleId: '12',
      ruleName: 'Opt-out keyword',
      url: target.url,
      secret: RULE_SECRET,
      conversationId: '88',
      senderPhone: '+33612345678',
      occurredOn: clock.now(),
    })
  }

  test('a rule call carries the rule-action body, signed with the rule secret, logged as rule.triggered', async ({ client, assert }) => {
    await callRule()
    await engine.settle()
    assert.lengthOf(target.calls, 1)
    const [call] = target.calls
    assert.equal(call.method, 'POST')
    assert.equal(call.headers['x-webhook-event'], 'rule.triggered')
    const body = JSON.parse(call.rawBody)
    assert.deepEqual(body, { ruleId: '12', ruleName: 'Opt-out keyword', conversationId: '88', maskedPhone: '+33•••••••78', occurredOn: START })
    assert.notInclude(call.rawBody, '612345678')
    const expected = createHmac('sha256', RULE_SECRET).update(`${call.headers['x-timestamp']}.${call.headers['x-delivery-id']}.${call.rawBody}`).digest('hex')
    assert.equal(call.headers['x-signature'], `sha256=${expected}`)

    const [entry] = await deliveries(client)
    assert.containsSubset(entry, { event: 'rule.triggered', target: { type: 'rule', id: '12', name: 'Opt-out keyword' }, webhookId: null, ruleId: '12', status: 'success' })
    // The rule's secret is stored sealed, never in clear.
    const row = await db.from('webhook_deliveries').where('id', entry.id).first()
    assert.notInclude(row.rule_secret_sealed, RULE_SECRET)
  })

  test('a failing rule call is retried on the same schedule, then fails; it is never replayable', async ({ client, assert }) => {
    target.answerWith(answerStatus(500))
    await callRule()
    await engine.settle()
    for (const wait of [30_000, 120_000, 600_000, 3_600_000]) {
      await clock.advance(wait - 1)
      await engine.settle()
      const before = target.calls.length
      await clock.advance(1)
      await engine.settle()
      assert.equal(target.calls.length, before + 1)
    }
    assert.lengthOf(target.calls, 5)
    const [entry] = await deliveries(client)
    assert.containsSubset(entry, { status: 'failed', attempts: 5 })
    const replay = await client.post(`/api/v1/webhooks/deliveries/${entry.id}/replay`).header('x-api-key', testKeys.admin)
    replay.assertStatus(409)
    replay.assertBodyContains({ error: { code: 'NOT_REPLAYABLE' } })
  })

  test('rule calls given up in a row switch nothing off', async ({ client, assert }) => {
    target.answerWith(answerStatus(500))
    for (let index = 0; index < 3; index++) await callRule()
    await engine.settle()
    await clock.advance(30_000 + 120_000 + 600_000 + 3_600_000)
    await engine.settle()
    await clock.advance(3_600_000)
    await engine.settle()
    assert.lengthOf(await deliveries(client, { status: 'failed' }), 3)
    // Another call still leaves.
    target.answerWith(answerStatus(200))
    await callRule()
    await engine.settle()
    assert.lengthOf(await deliveries(client, { status: 'success' }), 1)
  })
})
