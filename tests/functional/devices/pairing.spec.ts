import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { randomBytes } from 'node:crypto'
import { Secrets } from '#core/secrets/secrets'
import Device from '#modules/devices/models/device'
import { credentialMatches, parseDeviceCredential } from '#modules/devices/services/device_credentials'
import { useManualClock } from '#tests/helpers/clock'
import { asBrowser, signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearDevices, pairPhone, pairingCode } from '#tests/helpers/devices'
import { PairingAttempts } from '#modules/devices/services/pairing_attempts'

test.group('Pairing phones', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearDevices())

  test('a pairing code is one-time, valid 10 minutes, with QR data (gateway URL + code) and an SVG', async ({ client, assert }) => {
    const response = await client.post('/api/v1/devices/pairing-codes').header('x-api-key', testKeys.admin)
    response.assertStatus(201)
    const { code, expiresAt, qr } = response.body()
    assert.match(code, /^[2-9A-HJ-NP-Z]{8}$/)
    assert.deepEqual(JSON.parse(qr.text), { gateway: process.env.GATEWAY_PUBLIC_URL, code })
    assert.match(qr.svg, /^<svg[\s\S]*<\/svg>\s*$/)
    assert.isAbove(Date.parse(expiresAt), Date.now() + 9 * 60_000)
    // The code itself is never stored.
    assert.notInclude(JSON.stringify(await db.from('pairing_codes').select('*')), code)
  })

  test('pairing answers 201 with the device and a credential, usable once', async ({ client, assert }) => {
    const code = await pairingCode(client)
    const body = { code, name: 'Shop phone', model: 'Pixel 7', appVersion: '1.2.0', sims: [{ slot: 0, label: 'Pro', operator: 'Orange', number: '+33612345678' }, { slot: 1 }] }
    const response = await client.post('/api/v1/devices/pair').json(body)
    response.assertStatus(201)
    const { device, credential } = response.body()
    assert.deepInclude(device, { name: 'Shop phone', model: 'Pixel 7', appVersion: '1.2.0', enabled: true, status: 'offline', battery: null, signal: null })
    assert.deepEqual(device.sims, [
      { slot: 0, label: 'Pro', operator: 'Orange', number: '+33612345678', dailyQuota: null, sentToday: 0 },
      { slot: 1, label: null, operator: null, number: null, dailyQuota: null, sentToday: 0 },
    ])
    assert.deepEqual(parseDeviceCredential(credential)?.deviceId, Number(device.id))

    const again = await client.post('/api/v1/devices/pair').json({ ...body, name: 'Second' })
    again.assertStatus(400)
    assert.equal(again.body().error.code, 'INVALID_PAIRING_CODE')
  })

  test('the credential is kept sealed with the master key: another key cannot reveal it', async ({ client, assert }) => {
    const { device, credential } = await pairPhone(client)
    const row = await Device.findOrFail(Number(device.id))
    const { secret } = parseDeviceCredential(credential)!
    assert.notInclude(row.credentialSealed, secret)
    assert.isTrue(credentialMatches(await app.container.make(Secrets), row.credentialSealed, secret))
    assert.isFalse(credentialMatches(await app.container.make(Secrets), row.credentialSealed, `${secret.slice(0, -1)}x`))
    // A database restored without its secret.key: every phone must pair again.
    assert.isFalse(credentialMatches(new Secrets(randomBytes(32)), row.credentialSealed, secret))
  })

  test('an expired code is refused', async ({ client, assert }) => {
    const { clock, restore } = useManualClock(new Date())
    try {
      const code = await pairingCode(client)
      await clock.advance(10 * 60_000 + 1)
      const response = await client.post('/api/v1/devices/pair').json({ code, name: 'Late', sims: [{ slot: 0 }] })
      response.assertStatus(400)
      assert.equal(response.body().error.code, 'INVALID_PAIRING_CODE')
    } finally {
      restore()
    }
  })

  test('wrong codes are throttled per address: the 6th try within 10 minutes is 429', async ({ client, assert }) => {
    const statuses: number[] = []
    for (let attempt = 0; attempt < 6; attempt++) {
      const response = await client.post('/api/v1/devices/pair').header('x-forwarded-for', '203.0.113.5').json({ code: 'WRONGCODE', name: 'x', sims: [{ slot: 0 }] })
      statuses.push(response.status())
    }
    assert.deepEqual(statuses, [400, 400, 400, 400, 400, 429])
    // Another address is not affected.
    const code = await pairingCode(client)
    ;(await client.post('/api/v1/devices/pair').json({ code, name: 'ok', sims: [{ slot: 0 }] })).assertStatus(201)
  })

  test('the pairing throttle runs on the gateway clock: Retry-After counts down, the window ends', async ({ client, assert }) => {
    const { clock, restore } = useManualClock('2026-07-01T10:00:00.000Z')
    try {
      const wrong = () => client.post('/api/v1/devices/pair').header('x-forwarded-for', '203.0.113.6').json({ code: 'WRONGCODE', name: 'x', sims: [{ slot: 0 }] })
      for (let attempt = 0; attempt < 5; attempt++) (await wrong()).assertStatus(400)
      await clock.advance(4 * 60_000)
      const refused = await wrong()
      refused.assertStatus(429)
      assert.equal(refused.body().error.code, 'RATE_LIMITED')
      assert.equal(refused.header('retry-after'), String(6 * 60))
      // A right code is refused too until the window ends, then goes through.
      const code = await pairingCode(client)
      const right = () => client.post('/api/v1/devices/pair').header('x-forwarded-for', '203.0.113.6').json({ code, name: 'ok', sims: [{ slot: 0 }] })
      ;(await right()).assertStatus(429)
      await clock.advance(6 * 60_000)
      ;(await right()).assertStatus(201)
    } finally {
      restore()
    }
  })

  test('a burst of parallel wrong codes gets 5 tries, not one per request', async ({ client, assert }) => {
    const { restore } = useManualClock('2026-07-02T10:00:00.000Z')
    try {
      const guess = (index: number) =>
        client
          .post('/api/v1/devices/pair')
          .header('x-forwarded-for', '203.0.113.77')
          .json({ code: `QQQQ${String(index).padStart(4, '0')}`, name: 'guess', sims: [{ slot: 0 }] })
      const answers = await Promise.all(Array.from({ length: 30 }, (_, index) => guess(index)))
      const statuses = answers.map((answer) => answer.status())
      assert.equal(statuses.filter((status) => status === 400).length, 5)
      assert.equal(statuses.filter((status) => status === 429).length, 25)
      // A malformed request never tried a code: it does not use up a try.
      const other = () => client.post('/api/v1/devices/pair').header('x-forwarded-for', '203.0.113.78')
      for (let index = 0; index < 6; index++) (await other().json({ code: 'QQQQ0000', name: 'x', sims: [] })).assertStatus(400)
      ;(await other().json({ code: 'QQQQ0000', name: 'x', sims: [{ slot: 0 }] })).assertStatus(400)
    } finally {
      restore()
    }
  })

  test('wrong codes from very many addresses do not grow memory without bound: the oldest records go', async ({ assert }) => {
    const { restore } = useManualClock('2026-07-01T10:00:00.000Z')
    try {
      const attempts = await app.container.make(PairingAttempts)
      for (let failure = 0; failure < 5; failure++) await attempts.take('192.0.2.1')
      await assert.rejects(() => attempts.take('192.0.2.1'))
      // More distinct addresses than the throttle keeps (config/limiter.ts: 20 000 keys).
      for (let index = 0; index < 25_000; index++) await attempts.take(`2001:db8::${index.toString(16)}`)
      await attempts.take('192.0.2.1')
      // The newest are remembered, and the throttle still works.
      for (let failure = 0; failure < 5; failure++) await attempts.take('2001:db8::ffff:1')
      await assert.rejects(() => attempts.take('2001:db8::ffff:1'))
    } finally {
      restore()
    }
  }).timeout(60_000)

  test('pair input is validated: SIM slots 0/1, distinct, at least one', async ({ client, assert }) => {
    const code = await pairingCode(client)
    for (const sims of [[], [{ slot: 2 }], [{ slot: 0 }, { slot: 0 }]]) {
      const response = await client.post('/api/v1/devices/pair').json({ code, name: 'x', sims })
      response.assertStatus(400)
      assert.equal(response.body().error.code, 'VALIDATION_ERROR')
    }
  })

  test("the Activity log's device.paired names whoever made the code: a key or a signed-in person", async ({ client, assert }) => {
    const byKey = await client.post('/api/v1/devices/pairing-codes').header('x-api-key', testKeys.admin)
    const keyPaired = (await client.post('/api/v1/devices/pair').json({ code: byKey.body().code, name: 'Paired by key', sims: [{ slot: 0 }] })).body()
    const operator = await signInAs(client, 'operator')
    const byPerson = await asBrowser(client.post('/api/v1/devices/pairing-codes'), operator)
    const personPaired = (await client.post('/api/v1/devices/pair').json({ code: byPerson.body().code, name: 'Paired by person', sims: [{ slot: 0 }] })).body()

    const entries = (await client.get('/api/v1/activity?kind=device.paired&limit=10').header('x-api-key', testKeys.admin)).body().data
    const entryOf = (deviceId: string) => entries.find((entry: any) => entry.details.deviceId === deviceId)
    const keyRow = await db.from('api_keys').where('id', Number(entryOf(keyPaired.device.id).actor.split(':')[1])).first()
    assert.match(entryOf(keyPaired.device.id).actor, /^api_key:\d+$/)
    assert.equal(entryOf(keyPaired.device.id).actorName, keyRow.name)
    assert.match(entryOf(personPaired.device.id).actor, /^account:\d+$/)
    assert.isString(entryOf(personPaired.device.id).actorName)
  })

  test('pairing codes need admin scope or an operator/superadmin session', async ({ client, assert }) => {
    const byRead = await client.post('/api/v1/devices/pairing-codes').header('x-api-key', testKeys.read)
    byRead.assertStatus(403)
    const operator = await signInAs(client, 'operator')
    ;(await asBrowser(client.post('/api/v1/devices/pairing-codes'), operator)).assertStatus(201)
    assert.equal(byRead.body().error.code, 'FORBIDDEN_SCOPE')
  })
})

test.group('Managing phones', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearDevices())

  test('list and get show status, battery, signal, SIMs with quota and sent today, app version', async ({ client, assert }) => {
    const { device } = await pairPhone(client, 'Counter phone')
    const list = await client.get('/api/v1/devices').header('x-api-key', testKeys.read)
    list.assertStatus(200)
    assert.lengthOf(list.body().data, 1)
    assert.isNull(list.body().nextCursor)
    const one = await client.get(`/api/v1/devices/${device.id}`).header('x-api-key', testKeys.read)
    assert.properties(one.body(), ['id', 'name', 'model', 'appVersion', 'enabled', 'status', 'lastSeenAt', 'battery', 'signal', 'sims', 'textOptions', 'createdAt'])
    assert.notProperty(one.body(), 'credentialSealed')
  })

  test('PATCH renames, disables, sets SIM quotas and text options', async ({ client, assert }) => {
    const { device } = await pairPhone(client, 'Old name', [{ slot: 0 }, { slot: 1 }])
    const changed = await client
      .patch(`/api/v1/devices/${device.id}`)
      .header('x-api-key', testKeys.admin)
      .json({ name: 'New name', enabled: false, sims: [{ slot: 1, dailyQuota: 200 }], textOptions: { uppercase: true } })
    changed.assertStatus(200)
    assert.deepInclude(changed.body(), { name: 'New name', enabled: false })
    assert.equal(changed.body().sims[1].dailyQuota, 200)
    assert.isNull(changed.body().sims[0].dailyQuota)
    assert.deepEqual(changed.body().textOptions, { uppercase: true })
    const noSuchSlot = await client.patch(`/api/v1/devices/${device.id}`).header('x-api-key', testKeys.admin).json({ sims: [{ slot: 1, dailyQuota: 5 }, { slot: 0, dailyQuota: 0 }] })
    noSuchSlot.assertStatus(400)
  })

  test('DELETE unpairs; the device is gone', async ({ client, assert }) => {
    const { device } = await pairPhone(client)
    ;(await client.delete(`/api/v1/devices/${device.id}`).header('x-api-key', testKeys.admin)).assertStatus(204)
    const after = await client.get(`/api/v1/devices/${device.id}`).header('x-api-key', testKeys.read)
    after.assertStatus(404)
    assert.equal(after.body().error.code, 'NOT_FOUND')
  })
})
