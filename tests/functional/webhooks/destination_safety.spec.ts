import { test } from '@japa/runner'
import dns from 'node:dns'
import app from '@adonisjs/core/services/app'
import emitter from '@adonisjs/core/services/emitter'
import { useManualClock } from '#tests/helpers/clock'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearWebhooks, deliveries, startReceiver, useWebhookEngine, type Receiver } from '#tests/helpers/webhooks'
import { DestinationPolicy } from '#modules/webhooks/services/destination_policy'
import { RuleCalls } from '#modules/webhooks/services/rule_calls'
import type { ManualClock } from '#core/time/clock'

/** A name table in place of DNS: the name a webhook was saved with later resolves to loopback. */
function resolverOf(table: Record<string, string>): typeof dns.lookup {
  return ((hostname: string, options: any, callback: any) => {
    const address = table[hostname]
    if (!address) return dns.lookup(hostname, options, callback)
    const family = address.includes(':') ? 6 : 4
    if (options.all) return callback(null, [{ address, family }])
    return callback(null, address, family)
  }) as typeof dns.lookup
}

test.group('Webhook destination safety with the real policy', (group) => {
  let clock: ManualClock
  let engine: Awaited<ReturnType<typeof useWebhookEngine>>
  let target: Receiver

  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearWebhooks()
    const manual = useManualClock('2026-05-01T10:00:00.000Z')
    clock = manual.clock
    // The policy the gateway runs with; only the name table is the test's.
    engine = await useWebhookEngine(clock, {
      policy: new DestinationPolicy({ allowPrivateNetworks: true }),
      resolve: resolverOf({ 'hooks.example.test': '127.0.0.1', 'v6.example.test': '::ffff:127.0.0.1' }),
    })
    target = await startReceiver()
    return async () => {
      await engine.stop()
      await target.close()
      manual.restore()
    }
  })

  test('a name that resolves to the machine itself is caught at connect time: {$self}')
    .with(['hooks.example.test', 'v6.example.test'])
    .run(async ({ client, assert }, host) => {
      // Saved fine: a name is judged on what it resolves to when a call leaves.
      const created = await client.post('/api/v1/webhooks').header('x-api-key', testKeys.admin).json({
        name: `Resolves to loopback ${host}`,
        url: `http://${host}:${target.port}/hook`,
        events: ['device.online'],
      })
      created.assertStatus(201)
      await emitter.emit('device.online', { id: '4', deviceId: '4', status: 'online', at: clock.now() })
      await engine.settle()
      assert.lengthOf(target.calls, 0, 'nothing reached the loopback receiver')
      const [entry] = await deliveries(client)
      assert.containsSubset(entry, { status: 'pending', attempts: 1, httpStatus: null, detail: 'destination address is not allowed' })
    })

  test('a literal loopback address is refused at every attempt, before any connection', async ({ client, assert }) => {
    // A rule's URL is not checked when saved by this module: the attempt refuses it.
    await (await app.container.make(RuleCalls)).call({
      ruleId: '1',
      ruleName: 'Loopback rule',
      url: target.url,
      secret: 'rule-secret-0123456789',
      conversationId: '1',
      senderPhone: '+33612345678',
      occurredOn: clock.now(),
    })
    await engine.settle()
    assert.lengthOf(target.calls, 0)
    const [entry] = await deliveries(client)
    assert.containsSubset(entry, { status: 'pending', attempts: 1, error: 'destination address is not allowed' })
  })
})
