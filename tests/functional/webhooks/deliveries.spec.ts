import { test } from '@japa/runner'
import { createHmac, timingSafeEqual } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import { useManualClock } from '#tests/helpers/clock'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging, sendAs } from '#tests/helpers/messages'
import { eventually } from '#tests/helpers/phones'
import {
  answerStatus,
  clearWebhooks,
  createWebhook,
  deliveries,
  neverAnswer,
  startReceiver,
  useWebhookEngine,
  type Receiver,
} from '#tests/helpers/webhooks'
import type { ManualClock } from '#core/time/clock'

/** Verifies a call the way a receiver would (docs/webhooks.md, Verifying a call), with Node's crypto only. */
function verifiedBy(secret: string, call: { headers: http.IncomingHttpHeaders; rawBody: string }, nowSeconds: number): boolean {
  const timestamp = String(call.headers['x-timestamp'])
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${timestamp}.${call.headers['x-delivery-id']}.${call.rawBody}`).digest('hex')}`)
  const given = Buffer.from(String(call.headers['x-signature']))
  return given.length === expected.length && timingSafeEqual(given, expected) && Math.abs(nowSeconds - Number(timestamp)) <= 300
}

/** A port nothing listens on: every connection is refused at once. */
async function closedPortUrl() {
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}/gone`
}

const START = '2026-03-02T12:00:00.000Z'

test.group('Webhook deliveries', (group) => {
  let clock: ManualClock
  let engine: Awaited<ReturnType<typeof useWebhookEngine>>
  let receivers: Receiver[]

  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearWebhooks()
    const manual = useManualClock(START)
    clock = manual.clock
    engine = await useWebhookEngine(clock)
    receivers = []
    return async () => {
      await engine.stop()
      for (const receiver of receivers) await receiver.close()
      manual.restore()
      await clearWebhooks()
    }
  })

  async function receiver(behaviour?: Parameters<typeof startReceiver>[0]) {
    const started = await startReceiver(behaviour)
    receivers.push(started)
    return started
  }
  const deviceOffline = (id = '7') => emitter.emit('device.offline', { id, deviceId: id, status: 'offline', at: clock.now() })
  const webhookState = async (client: any, id: string) => (await client.get(`/api/v1/webhooks/${id}`).header('x-api-key', testKeys.read)).body()

  test('a call carries the signed body and headers a receiver verifies with its own HMAC', async ({ client, assert }) => {
    const target = await receiver()
    const { webhook, secret } = await createWebhook(client, {
      url: target.url,
      method: 'PUT',
      events: ['device.offline'],
      headers: [{ name: 'X-Tenant', value: 'acme' }],
    })
    await deviceOffline('7')
    await engine.settle()

    assert.lengthOf(target.calls, 1)
    const [call] = target.calls
    assert.equal(call.method, 'PUT')
    assert.equal(call.headers['content-type'], 'application/json; charset=utf-8')
    assert.equal(call.headers['x-webhook-event'], 'device.offline')
    assert.match(String(call.headers['x-delivery-id']), /^[0-9a-f-]{36}$/)
    assert.equal(call.headers['x-timestamp'], String(Date.parse(START) / 1000))
    assert.match(String(call.headers['x-signature']), /^sha256=[0-9a-f]{64}$/)
    assert.isTrue(verifiedBy(secret, call, Date.parse(START) / 1000))
    assert.isFalse(verifiedBy('another-secret-of-length', call, Date.parse(START) / 1000))
    assert.equal(call.headers['x-tenant'], 'acme')
    // The gateway's headers first, in the order docs/webhooks.md (A call) shows, then the custom ones.
    const order = ['content-type', 'x-webhook-event', 'x-delivery-id', 'x-timestamp', 'x-signature', 'x-tenant'].map((name) => call.headerOrder.indexOf(name))
    assert.deepEqual(order, [...order].sort((a, b) => a - b))
    assert.notInclude(order, -1)
    assert.deepEqual(JSON.parse(call.rawBody), { event: 'device.offline', at: START, id: '7', deviceId: '7', status: 'offline' })

    const [entry] = await deliveries(client)
    assert.containsSubset(entry, {
      deliveryId: call.headers['x-delivery-id'],
      event: 'device.offline',
      target: { type: 'webhook', id: webhook.id, name: webhook.name },
      webhookId: webhook.id,
      status: 'success',
      attempts: 1,
      maxAttempts: 5,
      httpStatus: 200,
      durationMs: 0,
      detail: 'ok',
      nextAttemptAt: null,
    })
  })

  test('one delivery per active webhook subscribed at that moment; empty fields omitted', async ({ client, assert }) => {
    const first = await receiver()
    const second = await receiver()
    const other = await receiver()
    await createWebhook(client, { url: first.url, events: ['device.low_battery', 'device.offline'] })
    await createWebhook(client, { url: second.url, events: ['device.low_battery'] })
    await createWebhook(client, { url: other.url, events: ['message.sent'] })
    await createWebhook(client, { url: other.url, events: ['device.low_battery'], active: false })
    await emitter.emit('device.low_battery', { id: '3', deviceId: '3', at: clock.now() })
    await engine.settle()
    assert.lengthOf(first.calls, 1)
    assert.lengthOf(second.calls, 1)
    assert.lengthOf(other.calls, 0)
    assert.deepEqual(JSON.parse(first.calls[0].rawBody), { event: 'device.low_battery', at: START, id: '3', deviceId: '3' })
    assert.notEqual(first.calls[0].headers['x-delivery-id'], second.calls[0].headers['x-delivery-id'])
    assert.lengthOf(await deliveries(client), 2)
  })

  test('a real event from the messages module: message.deleted carries ids only, never the number or text', async ({ client, assert }) => {
    await clearMessaging()
    const target = await receiver()
    await createWebhook(client, { url: target.url, events: ['message.deleted'] })
    const sent = await sendAs(client, { to: '+33612345678', body: 'Secret code 4321' })
    const message = sent.body().accepted[0]
    ;(await client.delete(`/api/v1/messages/${message.id}`).header('x-api-key', testKeys.admin)).assertStatus(204)
    await engine.settle()
    assert.lengthOf(target.calls, 1)
    const body = JSON.parse(target.calls[0].rawBody)
    assert.deepEqual(body, { event: 'message.deleted', at: START, id: message.id, conversationId: message.conversationId })
    assert.notInclude(target.calls[0].rawBody, '612345678')
    assert.notInclude(target.calls[0].rawBody, 'Secret code')
  })

  test('failed attempts are retried after exactly 30 s, 2 min, 10 min and 1 h; the 5th failure gives up', async ({ client, assert }) => {
    const target = await receiver(answerStatus(500, 'boom'))
    const { webhook } = await createWebhook(client, { url: target.url, events: ['device.offline'] })
    await deviceOffline()
    await engine.settle()
    assert.lengthOf(target.calls, 1)
    let [entry] = await deliveries(client)
    assert.containsSubset(entry, { status: 'pending', attempts: 1, httpStatus: 500, answer: 'boom', detail: 'boom', nextAttemptAt: '2026-03-02T12:00:30.000Z' })

    const waits = [30_000, 120_000, 600_000, 3_600_000]
    for (const [index, wait] of waits.entries()) {
      await clock.advance(wait - 1)
      await engine.settle()
      assert.lengthOf(target.calls, index + 1, `no attempt before the ${wait} ms wait is over`)
      await clock.advance(1)
      await engine.settle()
      assert.lengthOf(target.calls, index + 2, `attempt ${index + 2} right after ${wait} ms`)
    }
    // The same X-Delivery-Id on every attempt; a new X-Timestamp each time.
    assert.lengthOf(new Set(target.calls.map((call) => call.headers['x-delivery-id'])), 1)
    assert.lengthOf(new Set(target.calls.map((call) => call.headers['x-timestamp'])), 5)
    ;[entry] = await deliveries(client)
    assert.containsSubset(entry, { status: 'failed', attempts: 5, nextAttemptAt: null, httpStatus: 500 })
    assert.equal(entry.completedAt, '2026-03-02T13:12:30.000Z')
    assert.equal((await webhookState(client, webhook.id)).consecutiveFailures, 1)

    await clock.advance(24 * 3_600_000)
    await engine.settle()
    assert.lengthOf(target.calls, 5, 'nothing after giving up')
  })

  test('a success resets the failure counter to 0', async ({ client, assert }) => {
    const target = await receiver()
    const { webhook } = await createWebhook(client, { url: target.url, events: ['device.offline'] })
    await db.from('webhooks').where('id', webhook.id).update({ consecutive_failures: 42 })
    await deviceOffline()
    await engine.settle()
    assert.equal((await webhookState(client, webhook.id)).consecutiveFailures, 0)
  })

  test('a redirect is never followed and fails the attempt', async ({ client, assert }) => {
    const elsewhere = await receiver()
    const target = await receiver((_request, response) => {
      response.writeHead(302, { location: elsewhere.url })
      response.end()
    })
    await createWebhook(client, { url: target.url, events: ['device.offline'] })
    await deviceOffline()
    await engine.settle()
    assert.lengthOf(target.calls, 1)
    assert.lengthOf(elsewhere.calls, 0)
    const [entry] = await deliveries(client)
    assert.containsSubset(entry, { status: 'pending', attempts: 1, httpStatus: 302, detail: 'HTTP 302: a redirect, never followed (use the final URL)' })
  })

  test('4xx fails the attempt like 5xx; only the first 500 characters of an answer are kept', async ({ client, assert }) => {
    const target = await receiver(answerStatus(401, 'é'.repeat(5000)))
    await createWebhook(client, { url: target.url, events: ['device.offline'] })
    await deviceOffline()
    await engine.settle()
    const [entry] = await deliveries(client)
    assert.containsSubset(entry, { status: 'pending', httpStatus: 401 })
    assert.equal(entry.answer, 'é'.repeat(500))
    assert.equal(entry.detail, 'é'.repeat(500))
  })

  test('no answer within 10 s fails the attempt at exactly 10 s on the clock', async ({ client, assert }) => {
    const target = await receiver(neverAnswer)
    await createWebhook(client, { url: target.url, events: ['device.offline'] })
    await deviceOffline()
    await engine.until(() => target.calls.length === 1)
    await clock.advance(9_999)
    assert.equal(engine.worker.inFlight, 1, 'still waiting at 9.999 s')
    await clock.advance(1)
    await engine.worker.settled()
    const [entry] = await deliveries(client)
    assert.containsSubset(entry, {
      status: 'pending',
      attempts: 1,
      httpStatus: null,
      durationMs: 10_000,
      error: 'timeout: no answer within 10 s',
      detail: 'timeout: no answer within 10 s',
      nextAttemptAt: '2026-03-02T12:00:40.000Z',
    })
  })

  test('a refused connection fails the attempt with the network error as detail', async ({ client, assert }) => {
    await createWebhook(client, { url: await closedPortUrl(), events: ['device.offline'] })
    await deviceOffline()
    await engine.settle()
    const [entry] = await deliveries(client)
    assert.containsSubset(entry, { status: 'pending', attempts: 1, httpStatus: null, error: 'connection refused', detail: 'connection refused' })
  })

  test('a new secret applies from the next call, retries included', async ({ client, assert }) => {
    const target = await receiver(answerStatus(503))
    const { webhook, secret } = await createWebhook(client, { url: target.url, events: ['device.offline'] })
    await deviceOffline()
    await engine.settle()
    const next = 'rotated-secret-0123456789'
    ;(await client.patch(`/api/v1/webhooks/${webhook.id}`).header('x-api-key', testKeys.admin).json({ secret: next })).assertStatus(200)
    target.answerWith(answerStatus(200))
    await clock.advance(30_000)
    await engine.settle()
    assert.lengthOf(target.calls, 2)
    const now = clock.nowMs() / 1000
    assert.isTrue(verifiedBy(secret, target.calls[0], Date.parse(START) / 1000))
    assert.isFalse(verifiedBy(secret, target.calls[1], now))
    assert.isTrue(verifiedBy(next, target.calls[1], now))
  })

  test('pausing drops waiting deliveries and keeps no event; turning back on resets the counter', async ({ client, assert }) => {
    const target = await receiver(answerStatus(500))
    const { webhook } = await createWebhook(client, { url: target.url, events: ['device.offline'] })
    await deviceOffline('1')
    await engine.settle()
    await db.from('webhooks').where('id', webhook.id).update({ consecutive_failures: 7 })
    const paused = await client.patch(`/api/v1/webhooks/${webhook.id}`).header('x-api-key', testKeys.admin).json({ active: false })
    paused.assertBodyContains({ active: false })
    assert.notProperty(paused.body(), 'disabledAt')
    const [dropped] = await deliveries(client)
    assert.containsSubset(dropped, { status: 'failed', attempts: 1, detail: 'dropped: the webhook was paused', nextAttemptAt: null })

    await deviceOffline('2')
    await clock.advance(3_600_000)
    await engine.settle()
    assert.lengthOf(target.calls, 1, 'no retry and no call for the event during the pause')
    assert.lengthOf(await deliveries(client), 1)

    const resumed = await client.patch(`/api/v1/webhooks/${webhook.id}`).header('x-api-key', testKeys.admin).json({ active: true })
    resumed.assertBodyContains({ active: true, consecutiveFailures: 0 })
    target.answerWith(answerStatus(204))
    await deviceOffline('3')
    await engine.settle()
    assert.lengthOf(target.calls, 2)
    assert.equal(JSON.parse(target.calls[1].rawBody).id, '3')
  })

  test('100 deliveries given up in a row switch the webhook off; waiting ones are dropped', async ({ client, assert }) => {
    const url = await closedPortUrl()
    const { webhook } = await createWebhook(client, { name: 'Flaky CRM', url, events: ['device.offline'] })
    // Batch A (100 events) at 12:00:00, batch B (3 events) 10 s later: each attempt of B comes
    // 10 s after A's, so when A's 100th delivery is given up (12:72:30) B is waiting for its 5th.
    for (let index = 0; index < 100; index++) await deviceOffline(String(index))
    await engine.settle()
    await clock.advance(10_000)
    for (let index = 100; index < 103; index++) await deviceOffline(String(index))
    await engine.settle()
    for (const wait of [20_000, 10_000, 110_000, 10_000, 590_000, 10_000]) {
      await clock.advance(wait)
      await engine.settle()
      const state = await webhookState(client, webhook.id)
      assert.isTrue(state.active)
      assert.equal(state.consecutiveFailures, 0)
    }
    await clock.advance(3_590_000)
    await engine.settle()
    const state = await webhookState(client, webhook.id)
    assert.containsSubset(state, { active: false, consecutiveFailures: 100, disabledAt: '2026-03-02T13:12:30.000Z' })

    const byStatus = await db.from('webhook_deliveries').select('status', 'error').count('* as n').groupBy('status', 'error')
    assert.sameDeepMembers(
      byStatus.map((row: any) => ({ status: row.status, error: row.error, n: Number(row.n) })),
      [
        { status: 'failed', error: 'connection refused', n: 100 },
        { status: 'failed', error: 'dropped: the webhook was switched off after repeated failures', n: 3 },
      ]
    )
    const activity = await client.get('/api/v1/activity').qs({ source: 'webhooks' }).header('x-api-key', testKeys.read)
    const entry = activity.body().data.find((item: any) => item.message.includes('switched off'))
    assert.include(entry.message, 'Flaky CRM')
    assert.include(entry.message, '100')

    // Events while switched off are not kept; turning it back on resets the counter.
    await deviceOffline('late')
    await engine.settle()
    assert.equal(Number((await db.from('webhook_deliveries').count('* as n').first()).n), 103)
    const resumed = await client.patch(`/api/v1/webhooks/${webhook.id}`).header('x-api-key', testKeys.admin).json({ active: true })
    resumed.assertBodyContains({ active: true, consecutiveFailures: 0 })
    assert.notProperty(resumed.body(), 'disabledAt')
  })

  test('replay sends the same body with a new X-Delivery-Id and signature; refused on a paused webhook', async ({ client, assert }) => {
    const target = await receiver()
    const { webhook, secret } = await createWebhook(client, { url: target.url, events: ['device.offline'] })
    await deviceOffline()
    await engine.settle()
    const [original] = await deliveries(client)
    await clock.advance(60_000)
    const replayed = await client.post(`/api/v1/webhooks/deliveries/${original.id}/replay`).header('x-api-key', testKeys.admin)
    replayed.assertStatus(201)
    assert.containsSubset(replayed.body(), { status: 'pending', attempts: 0, event: 'device.offline', webhookId: webhook.id })
    assert.notEqual(replayed.body().deliveryId, original.deliveryId)
    await engine.settle()
    assert.lengthOf(target.calls, 2)
    assert.equal(target.calls[1].rawBody, target.calls[0].rawBody)
    assert.notEqual(target.calls[1].headers['x-delivery-id'], target.calls[0].headers['x-delivery-id'])
    assert.notEqual(target.calls[1].headers['x-signature'], target.calls[0].headers['x-signature'])
    assert.isTrue(verifiedBy(secret, target.calls[1], clock.nowMs() / 1000))

    ;(await client.patch(`/api/v1/webhooks/${webhook.id}`).header('x-api-key', testKeys.admin).json({ active: false })).assertStatus(200)
    const refused = await client.post(`/api/v1/webhooks/deliveries/${original.id}/replay`).header('x-api-key', testKeys.admin)
    refused.assertStatus(409)
    refused.assertBodyContains({ error: { code: 'WEBHOOK_INACTIVE' } })
    const byReader = await client.post(`/api/v1/webhooks/deliveries/${original.id}/replay`).header('x-api-key', testKeys.read)
    byReader.assertStatus(403)
  })

  test('a restart resumes deliveries where they were: a retry due while down and a call cut in flight', async ({ client, assert }) => {
    const failing = await receiver(answerStatus(500))
    const hanging = await receiver(neverAnswer)
    await createWebhook(client, { url: failing.url, events: ['device.offline'] })
    await createWebhook(client, { url: hanging.url, events: ['device.offline'] })
    await deviceOffline()
    await engine.until(() => failing.calls.length === 1 && hanging.calls.length === 1)
    await eventually(() => engine.worker.inFlight === 1)

    // The gateway stops: the hanging call is abandoned; both rows stay pending.
    await engine.stop()
    const rows = await db.from('webhook_deliveries').orderBy('id').select('status', 'attempts')
    assert.deepEqual(rows.map((row) => [row.status, row.attempts]), [['pending', 1], ['pending', 0]])

    await clock.advance(5 * 60_000)
    failing.answerWith(answerStatus(200))
    hanging.answerWith(answerStatus(200))
    engine = await useWebhookEngine(clock)
    await engine.settle()
    assert.lengthOf(failing.calls, 2)
    assert.lengthOf(hanging.calls, 2)
    assert.equal(failing.calls[1].headers['x-delivery-id'], failing.calls[0].headers['x-delivery-id'])
    assert.equal(hanging.calls[1].headers['x-delivery-id'], hanging.calls[0].headers['x-delivery-id'])
    const after = await db.from('webhook_deliveries').orderBy('id').select('status', 'attempts')
    assert.deepEqual(after.map((row) => [row.status, row.attempts]), [['success', 2], ['success', 1]])
  })

  test('a receiver that never answers does not delay deliveries to others', async ({ client, assert }) => {
    const hung = await receiver(neverAnswer)
    const healthy = await receiver()
    await createWebhook(client, { url: hung.url, events: ['device.offline'] })
    await createWebhook(client, { url: healthy.url, events: ['device.offline'] })
    for (let index = 0; index < 40; index++) await deviceOffline(String(index))
    await engine.until(() => healthy.calls.length === 40)
    assert.isAtMost(hung.calls.length, 8, 'the hung receiver holds only its own share of calls')
    assert.deepEqual(
      healthy.calls.map((call) => JSON.parse(call.rawBody).id).sort((a, b) => Number(a) - Number(b)),
      Array.from({ length: 40 }, (_, index) => String(index))
    )
    // The hung calls are abandoned when the engine stops (teardown).
  })

  test('the delivery log filters by webhook, status and event, newest first, in cursor pages', async ({ client, assert }) => {
    const ok = await receiver()
    const bad = await receiver(answerStatus(500))
    const good = await createWebhook(client, { url: ok.url, events: ['device.offline', 'device.online'] })
    const failing = await createWebhook(client, { url: bad.url, events: ['device.offline'] })
    await deviceOffline('a')
    await clock.advance(1000)
    await emitter.emit('device.online', { id: 'b', deviceId: 'b', status: 'online', at: clock.now() })
    await engine.settle()

    const all = await deliveries(client)
    assert.deepEqual(all.map((entry) => entry.event), ['device.online', 'device.offline', 'device.offline'])
    assert.lengthOf(await deliveries(client, { webhookId: good.webhook.id }), 2)
    assert.deepEqual((await deliveries(client, { status: 'pending' })).map((entry) => entry.webhookId), [failing.webhook.id])
    assert.lengthOf(await deliveries(client, { event: 'device.online' }), 1)
    const firstPage = await client.get('/api/v1/webhooks/deliveries').qs({ limit: 2 }).header('x-api-key', testKeys.read)
    const secondPage = await client.get('/api/v1/webhooks/deliveries').qs({ limit: 2, cursor: firstPage.body().nextCursor }).header('x-api-key', testKeys.read)
    assert.deepEqual([...firstPage.body().data, ...secondPage.body().data].map((entry: any) => entry.id), all.map((entry) => entry.id))
    assert.isNull(secondPage.body().nextCursor)
    const refused = await client.get('/api/v1/webhooks/deliveries').qs({ status: 'lost' }).header('x-api-key', testKeys.read)
    refused.assertStatus(400)
    refused.assertBodyContains({ error: { code: 'VALIDATION_ERROR', details: [{ field: 'status' }] } })
  })
})
