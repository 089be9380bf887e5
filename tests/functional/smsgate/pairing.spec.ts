import { test } from '@japa/runner'
import { APP_WEBHOOK_EVENTS } from '#modules/smsgate/channel/app_protocol'
import db from '@adonisjs/lucid/services/db'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearDevices, pairingCode } from '#tests/helpers/devices'
import { FakeSmsgateApp } from '#tests/functional/smsgate/support/fake_smsgate_app'
import { pairedApp, smsgateCode } from '#tests/functional/smsgate/support/smsgate_phones'

const API_URL = `${process.env.GATEWAY_PUBLIC_URL}/api/mobile/v1`

/**
 * Pairing the SMSGate app (docs/smsgate.md) and the calls it makes besides its messages, over
 * real HTTP with real SQLite; refusals in the statuses the app expects, never a 500.
 */
test.group('SMSGate app: pairing and its device calls', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearDevices())

  test('a code for the app is 8 digits and comes with the API URL to type; our agent’s answer is unchanged', async ({ client, assert }) => {
    const forApp = await smsgateCode(client)
    assert.match(forApp.code, /^\d{8}$/)
    assert.equal(forApp.apiUrl, API_URL)

    const forAgent = await client.post('/api/v1/devices/pairing-codes').header('x-api-key', testKeys.admin)
    forAgent.assertStatus(201)
    assert.sameMembers(Object.keys(forAgent.body()), ['code', 'expiresAt', 'qr'])
    assert.match(forAgent.body().code, /^[2-9A-Z]{8}$/)
    assert.deepEqual(JSON.parse(forAgent.body().qr.text), { gateway: process.env.GATEWAY_PUBLIC_URL, code: forAgent.body().code })

    const unknown = await client.post('/api/v1/devices/pairing-codes').header('x-api-key', testKeys.admin).json({ app: 'other' })
    unknown.assertStatus(400)
    assert.equal(unknown.body().error.code, 'VALIDATION_ERROR')
  })

  test('an API URL typed with a trailing slash works: the app’s //device and //events reach their routes', async ({ client, assert }) => {
    const { code, apiUrl } = await smsgateCode(client)
    const app = new FakeSmsgateApp(`${apiUrl}/`)
    assert.equal((await app.register(code)).status, 201)
    assert.equal((await app.patchDevice()).status, 204)
    assert.equal((await app.call('GET', '/settings')).status, 200)
    await app.connect()
    assert.equal(app.streamStatus, 200)
    app.disconnect()
  })

  test('POST /device with a code pairs the phone: {id, token, login, password}; the token is kept as a fingerprint only', async ({ client, assert }) => {
    const { code } = await smsgateCode(client)
    const app = new FakeSmsgateApp(API_URL)
    const answer = await app.register(code)
    assert.equal(answer.status, 201)
    assert.sameMembers(Object.keys(answer.json), ['id', 'token', 'login', 'password'])
    assert.match(answer.json.id, /^\d+$/)
    assert.match(answer.json.login, /^[A-Z0-9]{6}$/)
    assert.match(answer.json.password, /^[a-z0-9]{14}$/)
    assert.isAtLeast(answer.json.token.length, 32)

    const device = await db.from('devices').where('id', Number(answer.json.id)).first()
    assert.equal(device.kind, 'smsgate')
    assert.equal(device.name, 'samsung/a52qnsxx')
    assert.equal(device.app_version, '1.68.0')
    // Registered without SIMs: slot 0 stands in for its default SIM.
    assert.deepEqual((await db.from('device_sims').where('device_id', device.id).select('slot')).map((sim) => sim.slot), [0])
    const row = await db.from('smsgate_devices').where('device_id', device.id).first()
    const stored = JSON.stringify(row)
    assert.notInclude(stored, answer.json.token)
    assert.notInclude(stored, answer.json.password)
    assert.notEqual(row.signing_key_sealed, row.webhook_path_sealed)

    // The code works once.
    assert.equal((await new FakeSmsgateApp(API_URL).register(code)).status, 401)
    // The phone shows in the API like any phone.
    const listed = await client.get(`/api/v1/devices/${answer.json.id}`).header('x-api-key', testKeys.read)
    listed.assertStatus(200)
  })

  test('no credentials, a private token, a login, a wrong code or our agent’s code: 401 and no phone is made', async ({ client, assert }) => {
    const agentCode = await pairingCode(client)
    const app = new FakeSmsgateApp(API_URL)
    const body = { name: 'samsung/a52qnsxx', simCards: [] }
    for (const authorization of [null, 'Bearer private-token', `Basic ${Buffer.from('ABCDEF:secret').toString('base64')}`, 'Code 12345678', `Code ${agentCode}`]) {
      const answer = await app.call('POST', '/device', { authorization, body })
      assert.equal(answer.status, 401, String(authorization))
    }
    assert.equal(Number((await db.from('devices').count('* as n').first()).n), 0)
    // Our agent's code was not spent by the refusal.
    const paired = await client.post('/api/v1/devices/pair').json({ code: agentCode, name: 'Agent', sims: [{ slot: 0 }] })
    paired.assertStatus(201)
  })

  test('an app code does not pair our agent; wrong codes are throttled per address as for the agent', async ({ client, assert }) => {
    const { code } = await smsgateCode(client)
    const refused = await client.post('/api/v1/devices/pair').json({ code, name: 'Agent', sims: [{ slot: 0 }] })
    refused.assertStatus(400)
    assert.equal(refused.body().error.code, 'INVALID_PAIRING_CODE')

    // That refusal was the first wrong try from this address; four more, and the 6th try is refused.
    const app = new FakeSmsgateApp(API_URL)
    for (let attempt = 0; attempt < 4; attempt++) assert.equal((await app.register('00000000')).status, 401)
    const throttled = await app.register(code)
    assert.equal(throttled.status, 429)
    assert.isString(throttled.headers['retry-after'])
  })

  test('every later call needs its own token: none or an unknown one is 401; the body must name its own device', async ({ client, assert }) => {
    const app = await pairedApp(client, { connect: false })
    for (const [method, path] of [['PATCH', '/device'], ['GET', '/message'], ['PATCH', '/message'], ['GET', '/webhooks'], ['GET', '/settings'], ['GET', '/events']]) {
      for (const authorization of [null, 'Bearer unknown-token']) {
        const body = method === 'PATCH' ? (path === '/device' ? { id: app.id } : [{ id: '1', state: 'Sent', recipients: [{ phoneNumber: '+33612345678', state: 'Sent' }] }]) : undefined
        const answer = await app.call(method, path, { authorization, body })
        assert.equal(answer.status, 401, `${method} ${path} with ${authorization}`)
      }
    }
    const other = await app.call('PATCH', '/device', { body: { id: String(Number(app.id) + 1) } })
    assert.equal(other.status, 403)
    const malformed = await app.call('PATCH', '/message', { body: [{ id: '1', state: 'Sent', recipients: [] }] })
    assert.equal(malformed.status, 400)
    const badOrder = await app.call('GET', '/message?order=random')
    assert.equal(badOrder.status, 400)
  })

  test('GET /device answers the caller’s address, and its device with its token; PATCH /device updates its SIMs and push token', async ({ client, assert }) => {
    const app = await pairedApp(client, { connect: false })
    const anonymous = await app.call('GET', '/device', { authorization: null })
    assert.equal(anonymous.status, 200)
    assert.deepEqual(Object.keys(anonymous.json), ['externalIp'])

    const mine = await app.call('GET', '/device')
    assert.equal(mine.status, 200)
    assert.equal(mine.json.device.id, app.id)
    assert.deepEqual(mine.json.device.simCards, [{ slotIndex: 0, simNumber: 1, carrierName: '**ange', phoneNumber: '********5678' }])

    const sims = await db.from('device_sims').where('device_id', Number(app.id)).orderBy('slot').select('slot', 'operator', 'number')
    assert.deepEqual(sims, [{ slot: 0, operator: '**ange', number: null }])

    assert.equal((await app.call('PATCH', '/device', { body: { id: app.id, pushToken: 'fcm-token', simCards: [{ slotIndex: 0, simNumber: 1 }, { slotIndex: 1, simNumber: 2, carrierName: '**ree' }] } })).status, 204)
    assert.deepEqual((await db.from('device_sims').where('device_id', Number(app.id)).orderBy('slot').select('slot')).map((sim) => sim.slot), [0, 1])
    assert.equal((await db.from('smsgate_devices').where('device_id', Number(app.id)).first()).push_token_set, 1)

    // Back to "SSE only": no push token any more. No SIM reported: the SIMs it has are kept.
    assert.equal((await app.call('PATCH', '/device', { body: { id: app.id, simCards: [] } })).status, 204)
    assert.equal((await db.from('smsgate_devices').where('device_id', Number(app.id)).first()).push_token_set, 0)
    assert.lengthOf(await db.from('device_sims').where('device_id', Number(app.id)), 2)
  })

  test('GET /webhooks lists only events the app knows and GET /settings is an object of objects, without the server address', async ({ client, assert }) => {
    const app = await pairedApp(client, { connect: false })
    const webhooks = await app.call('GET', '/webhooks')
    assert.equal(webhooks.status, 200)
    assert.isAbove(webhooks.json.length, 0)
    for (const webhook of webhooks.json) {
      assert.includeMembers([...APP_WEBHOOK_EVENTS], [webhook.event])
      assert.sameMembers(Object.keys(webhook), ['id', 'url', 'event'])
    }

    const settings = await app.call('GET', '/settings')
    assert.equal(settings.status, 200)
    for (const section of Object.values(settings.json)) assert.isObject(section)
    assert.notProperty(settings.json.gateway, 'cloud_url')
    assert.notProperty(settings.json.gateway, 'private_token')
    assert.equal(settings.json.gateway.notification_channel, 'SSE_ONLY')
    assert.isString(settings.json.webhooks.signing_key)
  })
})
