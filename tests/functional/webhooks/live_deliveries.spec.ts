import { test } from '@japa/runner'
import emitter from '@adonisjs/core/services/emitter'
import { useManualClock } from '#tests/helpers/clock'
import { signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { eventually } from '#tests/helpers/phones'
import { openLiveStream } from '#tests/helpers/live_stream'
import { answerStatus, clearWebhooks, createWebhook, deliveries, startReceiver, useWebhookEngine, type Receiver } from '#tests/helpers/webhooks'
import type { ManualClock } from '#core/time/clock'

const START = '2026-03-02T12:00:00.000Z'

test.group('Webhook deliveries live on the dashboard stream', (group) => {
  let clock: ManualClock
  let engine: Awaited<ReturnType<typeof useWebhookEngine>>
  let receiver: Receiver

  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearWebhooks()
    const manual = useManualClock(START)
    clock = manual.clock
    engine = await useWebhookEngine(clock)
    receiver = await startReceiver()
    return async () => {
      await engine.stop()
      await receiver.close()
      manual.restore()
      await clearWebhooks()
    }
  })

  const lowBattery = (id: string) => emitter.emit('device.low_battery', { id, deviceId: id, at: clock.now() })

  test('a burst of events is announced once per written batch, naming deliveries and webhooks only', async ({ client, assert }) => {
    const session = await signInAs(client, 'readonly')
    const stream = await openLiveStream(client, session, 'webhooks')
    try {
      const { webhook, secret } = await createWebhook(client, { url: receiver.url, events: ['device.low_battery'], secret: 'a-secret-of-24-characters' })
      // Ten events in one tick: the recorder's group commit writes them together.
      await Promise.all(Array.from({ length: 10 }, (_, index) => lowBattery(String(index + 1))))
      await engine.settle()
      assert.lengthOf(receiver.calls, 10)

      const created = () => stream.events().filter((event) => event.type === 'delivery.created')
      const changed = () => stream.events().filter((event) => event.type === 'delivery.changed')
      await eventually(() => created().reduce((sum, event) => sum + Number(event.count), 0) === 10)
      const log = await deliveries(client)
      const announced = () => new Set(changed().flatMap((event) => event.deliveryIds as string[]))
      await eventually(() => announced().size === 10)

      assert.isBelow(created().length, 10, 'one announcement per batch, not per delivery')
      assert.isBelow(changed().length, 10, 'outcomes stored together are announced together')
      assert.sameMembers([...announced()], log.map((entry) => entry.id))
      for (const event of stream.events()) {
        assert.includeMembers(['type', 'at', 'webhookIds', 'deliveryIds', 'count'], Object.keys(event))
        assert.deepEqual(event.webhookIds, [webhook.id])
        assert.equal(event.at, START)
      }
      const raw = JSON.stringify(stream.events())
      assert.notInclude(raw, receiver.url)
      assert.notInclude(raw, secret)
      assert.notInclude(raw, 'low_battery')
    } finally {
      stream.close()
    }
  })

  test('a failed attempt, its retry, a replay and a pause are each announced; the failing counts follow', async ({ client, assert }) => {
    const session = await signInAs(client, 'readonly')
    const stream = await openLiveStream(client, session, 'webhooks')
    const failing = async () => (await client.get('/api/v1/webhooks/deliveries/failing').header('x-api-key', testKeys.read)).body()
    try {
      receiver.answerWith(answerStatus(503, 'down'))
      const { webhook } = await createWebhook(client, { url: receiver.url, events: ['device.low_battery'] })
      assert.deepEqual(await failing(), { retrying: 0, failedRecently: 0, switchedOff: 0, since: '2026-03-01T12:00:00.000Z' })

      await lowBattery('1')
      await engine.settle()
      const [entry] = await deliveries(client)
      const changedFor = (id: string) => stream.events().filter((event) => event.type === 'delivery.changed' && (event.deliveryIds as string[]).includes(id))
      await eventually(() => changedFor(entry.id).length === 1)
      assert.containsSubset(await failing(), { retrying: 1, failedRecently: 0 })

      // Through the four waits to the fifth failed attempt: given up.
      for (const wait of [30_000, 120_000, 600_000, 3_600_000]) {
        await clock.advance(wait)
        await engine.settle()
      }
      await eventually(() => changedFor(entry.id).length === 5)
      assert.containsSubset(await failing(), { retrying: 0, failedRecently: 1, switchedOff: 0 })

      receiver.answerWith(answerStatus(200, 'ok'))
      const replay = await client.post(`/api/v1/webhooks/deliveries/${entry.id}/replay`).header('x-api-key', testKeys.admin)
      replay.assertStatus(201)
      await engine.settle()
      await eventually(() => changedFor(replay.body().id).length === 1)
      assert.isTrue(stream.events().some((event) => event.type === 'delivery.created' && event.count === 1))

      // Pausing drops what waits for a retry: announced, with no delivery to name.
      receiver.answerWith(answerStatus(500))
      await lowBattery('2')
      await engine.settle()
      assert.containsSubset(await failing(), { retrying: 1 })
      const before = stream.events().length
      ;(await client.patch(`/api/v1/webhooks/${webhook.id}`).header('x-api-key', testKeys.admin).json({ active: false })).assertStatus(200)
      await eventually(() => stream.events().slice(before).some((event) => event.type === 'delivery.changed' && (event.deliveryIds as string[]).length === 0))
      assert.containsSubset(await failing(), { retrying: 0, failedRecently: 2 })

      // Past 24 hours after their creation, failures no longer count.
      await clock.advance(24 * 3_600_000 + 1)
      assert.containsSubset(await failing(), { failedRecently: 0 })
    } finally {
      stream.close()
    }
  })

  test('creating, changing and deleting a webhook through the API is announced, without its URL or secret', async ({ client, assert }) => {
    const session = await signInAs(client, 'readonly')
    const stream = await openLiveStream(client, session, 'webhooks')
    try {
      const { webhook, secret } = await createWebhook(client, { url: receiver.url, events: ['device.offline'] })
      ;(await client.patch(`/api/v1/webhooks/${webhook.id}`).header('x-api-key', testKeys.admin).json({ name: 'Renamed hook' })).assertStatus(200)
      ;(await client.delete(`/api/v1/webhooks/${webhook.id}`).header('x-api-key', testKeys.admin)).assertStatus(204)
      const changed = () => stream.events().filter((event) => event.type === 'webhook.changed')
      await eventually(() => changed().length === 3)
      for (const event of changed()) assert.deepEqual(event, { type: 'webhook.changed', at: START, webhookIds: [webhook.id] })
      const raw = JSON.stringify(stream.events())
      assert.notInclude(raw, receiver.url)
      assert.notInclude(raw, secret)
    } finally {
      stream.close()
    }
  })

  test('the event list names every event a webhook may subscribe to, with its family', async ({ client, assert }) => {
    const response = await client.get('/api/v1/webhooks/events').header('x-api-key', testKeys.read)
    response.assertStatus(200)
    const names = response.body().data.map((event: { name: string }) => event.name)
    assert.includeMembers(names, ['message.sent', 'message.delivered', 'device.offline', 'device.online'])
    const sent = response.body().data.find((event: { name: string }) => event.name === 'message.sent')
    assert.equal(sent.family, 'Messages')
    assert.isAbove(sent.description.length, 5)
    // Every listed name is one a webhook accepts.
    await createWebhook(client, { url: receiver.url, events: names })
  })
})
