import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import type { ApiClient } from '@japa/api-client'
import { testKeys } from '#tests/helpers/callers'
import { gsonJson, type FakeSmsgateApp } from '#tests/functional/smsgate/support/fake_smsgate_app'
import { pairedApp, useSmsgateGateway } from '#tests/functional/smsgate/support/smsgate_phones'

/**
 * Received SMS through the app's own webhooks (docs/smsgate.md, Received SMS): the URLs and key
 * the gateway hands each phone, signed posts over real HTTP checked on their raw bytes, and an
 * `sms:received` stored like our agent's inbound SMS, once however often it is posted.
 */
test.group('SMSGate app: received SMS through its signed webhooks', (group) => {
  const world = useSmsgateGateway(group, ['message.received', 'device.low_battery'])
  const flush = world.flush
  const inbound = () => db.from('messages').where('direction', 'in').orderBy('id').select('phone', 'body', 'sim_slot', 'device_id')
  const phone = async (client: ApiClient) => {
    const paired = await pairedApp(client)
    paired.nowMs = () => world.clock.nowMs()
    world.apps.push(paired)
    await paired.sync()
    await flush()
    return paired
  }
  const sms = (text: string, receivedAt = '2026-08-01T18:00:00.000+07:00') => ({
    message: text,
    receivedAt,
    messageId: '6f1d2a9c',
    sender: '+33612345678',
    simNumber: 2,
    phoneNumber: '+33612345678',
  })

  test('GET /webhooks hands the phone its own URL for each event it takes, and GET /settings its signing key', async ({ client, assert }) => {
    const smsgate = await phone(client)
    const other = await phone(client)
    assert.deepEqual(
      smsgate.webhooks.map((webhook) => webhook.event),
      ['sms:received', 'sms:data-received', 'mms:received', 'system:ping']
    )
    const [url] = new Set(smsgate.webhooks.map((webhook) => webhook.url))
    assert.lengthOf(new Set(smsgate.webhooks.map((webhook) => webhook.url)), 1)
    assert.match(url, new RegExp(`^${smsgate.apiUrl}/webhooks/${smsgate.id}/[A-Za-z0-9_-]{32}$`))
    assert.lengthOf(new Set(smsgate.webhooks.map((webhook) => webhook.id)), 4)
    // Stable for the device (the app replaces its set at each sync), another device's differ.
    assert.deepEqual((await smsgate.call('GET', '/webhooks')).json, smsgate.webhooks)
    assert.notDeepEqual(other.webhooks.map((webhook) => webhook.url), smsgate.webhooks.map((webhook) => webhook.url))
    const ids = new Set(smsgate.webhooks.map((webhook) => webhook.id))
    assert.isFalse(other.webhooks.some((webhook) => ids.has(webhook.id)))
    assert.match(smsgate.signingKey, /^[A-Za-z0-9_-]{32}$/)
    assert.notEqual(smsgate.signingKey, other.signingKey)
    assert.equal((await smsgate.call('GET', '/webhooks', { authorization: null })).status, 401)
  })

  test('an sms:received lands as an inbound message once, however often it is posted; two SMS are two', async ({ client, assert }) => {
    const smsgate = await phone(client)
    // Gson escapes = < > & ': the signature is over the bytes as sent, not a re-serialised body.
    const text = 'Code = 1234 <ok> & c’est «bon» 👍'
    assert.include(gsonJson(sms(text)), '\\u003d')
    const first = await smsgate.postWebhook('sms:received', sms(text))
    assert.equal(first.status, 204, first.text)
    // The app posts it again (a new envelope id and timestamp): answered 2xx, stored once.
    await world.clock.advance(20_000)
    assert.equal((await smsgate.postWebhook('sms:received', sms(text))).status, 204)
    // The same text from the same sender a minute later is another SMS.
    assert.equal((await smsgate.postWebhook('sms:received', sms(text, '2026-08-01T18:01:00.000+07:00'))).status, 204)
    await flush()

    const stored = await inbound()
    assert.deepEqual(stored, [
      { phone: '+33612345678', body: text, sim_slot: 1, device_id: smsgate.id },
      { phone: '+33612345678', body: text, sim_slot: 1, device_id: smsgate.id },
    ])
    world.events.assertEmittedCount('message.received', 2)
    assert.lengthOf(await db.from('conversations').where('phone', '+33612345678'), 1)
    const listed = await client.get('/api/v1/conversations').header('x-api-key', testKeys.read)
    listed.assertStatus(200)
    assert.include(JSON.stringify(listed.body()), '+33612345678')
  })

  test('unsigned, wrongly signed, stale and misaddressed calls are refused and store nothing', async ({ client, assert }) => {
    const smsgate = await phone(client)
    const other = await phone(client)
    const payload = sms('Must not be stored')
    const refusals: Array<[string, Awaited<ReturnType<FakeSmsgateApp['postWebhook']>>, number, string]> = [
      ['unsigned', await smsgate.postWebhook('sms:received', payload, { signature: null }), 401, 'WEBHOOK_UNSIGNED'],
      ['another key', await smsgate.postWebhook('sms:received', payload, { key: other.signingKey }), 401, 'WEBHOOK_BAD_SIGNATURE'],
      ['not hex', await smsgate.postWebhook('sms:received', payload, { signature: 'not-a-signature' }), 401, 'WEBHOOK_BAD_SIGNATURE'],
      ['6 minutes old', await smsgate.postWebhook('sms:received', payload, { timestamp: Math.floor(world.clock.nowMs() / 1000) - 360 }), 401, 'WEBHOOK_STALE'],
      ['6 minutes ahead', await smsgate.postWebhook('sms:received', payload, { timestamp: Math.floor(world.clock.nowMs() / 1000) + 360 }), 401, 'WEBHOOK_STALE'],
      ['another device’s URL', await smsgate.postWebhook('sms:received', payload, { url: other.webhooks[0].url }), 401, 'WEBHOOK_BAD_SIGNATURE'],
      ['a wrong path secret', await smsgate.postWebhook('sms:received', payload, { url: `${smsgate.apiUrl}/webhooks/${smsgate.id}/${'x'.repeat(32)}` }), 404, 'NOT_FOUND'],
      ['an unknown device', await smsgate.postWebhook('sms:received', payload, { url: `${smsgate.apiUrl}/webhooks/999999/${'x'.repeat(32)}` }), 404, 'NOT_FOUND'],
      ['signed, not JSON', await smsgate.postWebhook('sms:received', payload, { body: '{"event": ' }), 400, 'VALIDATION_ERROR'],
      ['signed, no text', await smsgate.postWebhook('sms:received', { sender: '+33612345678' }), 400, 'VALIDATION_ERROR'],
    ]
    for (const [what, answer, status, code] of refusals) {
      assert.equal(answer.status, status, what)
      assert.equal(answer.json?.error?.code, code, what)
    }
    // Within 5 minutes either way of the gateway's world.clock is taken.
    assert.equal((await smsgate.postWebhook('sms:received', payload, { timestamp: Math.floor(world.clock.nowMs() / 1000) - 240 })).status, 204)
    await flush()
    assert.lengthOf(await inbound(), 1)
    world.events.assertEmittedCount('message.received', 1)
  })

  test('a system:ping carries the battery: level and charging on the phone, device.low_battery once when it crosses 15 %', async ({ client, assert }) => {
    const smsgate = await phone(client)
    const settings = await smsgate.call('GET', '/settings')
    assert.deepEqual(settings.json.ping, { interval_seconds: 300 })
    const ping = (level: unknown, charging: unknown) => ({
      health: {
        version: '1.68.0',
        releaseId: 1,
        status: 'pass',
        checks: {
          'battery:level': { description: 'Battery level in percent', observedUnit: 'percent', observedValue: level, status: 'pass' },
          'battery:charging': { description: 'Is the phone charging?', observedUnit: 'flags', observedValue: charging, status: 'pass' },
          'connection:cellular': { description: 'Cellular network type', observedUnit: 'index', observedValue: 0, status: 'pass' },
        },
      },
    })
    const device = async () => (await client.get(`/api/v1/devices/${smsgate.id}`).header('x-api-key', testKeys.read)).body()
    assert.equal((await smsgate.postWebhook('system:ping', ping(74, 2))).status, 204)
    await flush()
    assert.deepEqual((await device()).battery, { level: 74, charging: true })
    assert.equal((await smsgate.postWebhook('system:ping', ping(12, 0))).status, 204)
    assert.equal((await smsgate.postWebhook('system:ping', ping(11, 0))).status, 204)
    await flush()
    assert.deepEqual((await device()).battery, { level: 11, charging: false })
    world.events.assertEmittedCount('device.low_battery', 1)
    // A ping without a battery, or with values that are not numbers, changes nothing and is taken.
    assert.equal((await smsgate.postWebhook('system:ping', { health: { status: 'pass' } })).status, 204)
    assert.equal((await smsgate.postWebhook('system:ping', ping('high', 'yes'))).status, 204)
    await flush()
    assert.deepEqual((await device()).battery, { level: 11, charging: false })
    assert.isNull((await device()).signal)
  })

  test('data SMS and MMS notices are acknowledged and not kept; an event not registered is taken and ignored', async ({ client, assert }) => {
    const smsgate = await phone(client)
    const url = smsgate.webhooks[0].url
    assert.equal((await smsgate.postWebhook('sms:data-received', { data: 'SGVsbG8=', receivedAt: '2026-08-01T18:00:00.000+07:00', sender: '+33612345678' })).status, 204)
    assert.equal((await smsgate.postWebhook('mms:received', { transactionId: 'T1', size: 1024, receivedAt: '2026-08-01T18:00:00.000+07:00', sender: '+33612345678' })).status, 204)
    assert.equal((await smsgate.postWebhook('sms:sent', { messageId: '1', partsCount: 1, sentAt: '2026-08-01T18:00:00.000+07:00' }, { url })).status, 204)
    await flush()
    assert.lengthOf(await inbound(), 0)
    world.events.assertEmittedCount('message.received', 0)
  })
})
