import { test } from '@japa/runner'
import { randomUUID } from 'node:crypto'
import type { ApiResponse } from '@japa/api-client'
import { asBrowser, signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging, messageCount, sendAs } from '#tests/helpers/messages'
import { clearDevices, pairPhone } from '#tests/helpers/devices'

const LONE_SURROGATE_EMAIL = '\ud800@example.com'

function assertRefusedOn(assert: any, response: ApiResponse, field: string) {
  response.assertStatus(400)
  const { error } = response.body()
  assert.equal(error.code, 'VALIDATION_ERROR')
  assert.isString(error.requestId)
  assert.include(
    error.details.map((detail: { field: string }) => detail.field),
    field,
    JSON.stringify(error.details)
  )
}

test.group('Bad input: a lone UTF-16 surrogate is 400, never 500', (group) => {
  group.setup(() => useTestKeys())

  test('in an e-mail field of POST /auth/setup (unauthenticated)', async ({ client, assert }) => {
    const response = await client.post('/api/v1/auth/setup').json({ email: LONE_SURROGATE_EMAIL, password: 'long enough password', name: 'Ada' })
    assertRefusedOn(assert, response, 'email')
  })

  test('in an e-mail field of POST /users', async ({ client, assert }) => {
    const session = await signInAs(client, 'superadmin')
    const response = await asBrowser(client.post('/api/v1/users'), session).json({
      email: LONE_SURROGATE_EMAIL,
      password: 'long enough password',
      name: 'Ada',
      role: 'readonly',
    })
    assertRefusedOn(assert, response, 'email')
  })

  test('in an e-mail field of POST /contacts', async ({ client, assert }) => {
    const response = await client.post('/api/v1/contacts').header('x-api-key', testKeys.admin).json({ phone: '+33612345678', email: LONE_SURROGATE_EMAIL })
    assertRefusedOn(assert, response, 'email')
  })

  test('in a nested e-mail field of PATCH /settings, named by its path', async ({ client, assert }) => {
    const response = await client
      .patch('/api/v1/settings')
      .header('x-api-key', testKeys.admin)
      .json({ notifications: { adminEmails: ['ops@example.com', LONE_SURROGATE_EMAIL] } })
    assertRefusedOn(assert, response, 'notifications.adminEmails.1')
  })

  test('in a field name, which is not quoted back', async ({ client, assert }) => {
    const response = await client.post('/api/v1/contacts').header('x-api-key', testKeys.admin).json({ phone: '+33612345678', ['\udc00x']: 1 })
    response.assertStatus(400)
    assert.equal(response.body().error.code, 'VALIDATION_ERROR')
    assert.isTrue(JSON.stringify(response.body()).isWellFormed())
    assert.notInclude(JSON.stringify(response.body()), '\\udc00')
  })
})

test.group('Bad input: the live notice routes answer 400 in the error format', (group) => {
  group.setup(() => useTestKeys())

  test('GET /__transmit/events without a uid, or with several', async ({ client, assert }) => {
    const session = await signInAs(client, 'readonly')
    for (const query of ['', '?uid=', '?uid=a&uid=b']) {
      const response = await client.get(`/__transmit/events${query}`).header('cookie', session.cookie)
      assertRefusedOn(assert, response, 'uid')
    }
  })

  test('POST /__transmit/subscribe and /unsubscribe with a missing or non-string channel or uid', async ({ client, assert }) => {
    const session = await signInAs(client, 'readonly')
    for (const path of ['/__transmit/subscribe', '/__transmit/unsubscribe']) {
      for (const [body, field] of [
        [{ uid: randomUUID() }, 'channel'],
        [{ uid: randomUUID(), channel: 5 }, 'channel'],
        [{ uid: randomUUID(), channel: ['notices'] }, 'channel'],
        [{ uid: randomUUID(), channel: { a: 1 } }, 'channel'],
        [{ channel: 'notices' }, 'uid'],
        [{ uid: 7, channel: 'notices' }, 'uid'],
      ] as const) {
        const response = await asBrowser(client.post(path), session).json(body)
        assertRefusedOn(assert, response, field)
      }
    }
  })
})

test.group('Bad input: a body that is not a JSON object', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearMessaging())

  test('a top-level array is refused as the body, on a route with a body and on one without', async ({ client, assert }) => {
    const answers = [
      await sendAs(client, [{ to: '+33612345678', body: 'Hello' }]),
      await client.post('/api/v1/devices/pairing-codes').header('x-api-key', testKeys.admin).json([1, 2] as any),
      // A route that takes no body: the array is not ignored either.
      await client.post('/api/v1/messages/999999/retry').header('x-api-key', testKeys.admin).json([] as any),
    ]
    for (const response of answers) {
      response.assertStatus(400)
      assert.deepEqual(response.body().error.details, [{ field: 'body', rule: 'object', message: 'The body must be a JSON object' }])
    }
    assert.equal(await messageCount(), 0)
  })

  test("a list's item is named by its path in the message, as in details.field", async ({ client, assert }) => {
    const webhook = await client
      .post('/api/v1/webhooks')
      .header('x-api-key', testKeys.admin)
      .json({ name: 'Items', url: 'https://example.com/hook', events: ['message.sent', 'message.nope'] })
    webhook.assertStatus(400)
    assert.deepInclude(webhook.body().error.details, { field: 'events.1', rule: 'in', message: 'The selected events.1 is invalid' })
    const optOut = await client.post('/api/v1/contacts/opt-out').header('x-api-key', testKeys.admin).json({ contactIds: ['1', 2] })
    optOut.assertStatus(400)
    assert.deepEqual(optOut.body().error.details, [{ field: 'contactIds.1', rule: 'string', message: 'The contactIds.1 field must be a string' }])
  })
})

test.group('Bad input: types as the document says', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearMessaging())

  test('POST /messages: simSlot must be the number 0 or 1; nothing is queued otherwise', async ({ client, assert }) => {
    for (const simSlot of ['', ' ', false, true, '1', '0', null, [0]]) {
      const response = await sendAs(client, { to: '+33612345678', body: 'Hello', simSlot })
      assertRefusedOn(assert, response, 'simSlot')
    }
    assert.equal(await messageCount(), 0)
    ;(await sendAs(client, { to: '+33612345678', body: 'Hello', simSlot: 1 })).assertStatus(202)
  })

  test('POST /messages: shortenLinks must be a boolean, deviceId a string, not null', async ({ client, assert }) => {
    for (const [body, field] of [
      [{ shortenLinks: 'true' }, 'shortenLinks'],
      [{ shortenLinks: 1 }, 'shortenLinks'],
      [{ deviceId: null }, 'deviceId'],
      [{ deviceId: 12 }, 'deviceId'],
      [{ category: null }, 'category'],
    ] as const) {
      assertRefusedOn(assert, await sendAs(client, { to: '+33612345678', body: 'Hello', ...body }), field)
    }
    assert.equal(await messageCount(), 0)
  })

  test('PATCH /devices/{id}: a boolean or a numeric string is not a quota, null is not a name', async ({ client, assert }) => {
    await clearDevices()
    const { device } = await pairPhone(client)
    const patch = (body: object) => client.patch(`/api/v1/devices/${device.id}`).header('x-api-key', testKeys.admin).json(body)
    for (const [body, field] of [
      [{ sims: [{ slot: 0, dailyQuota: true }] }, 'sims.0.dailyQuota'],
      [{ sims: [{ slot: 0, dailyQuota: '50' }] }, 'sims.0.dailyQuota'],
      [{ sims: [{ slot: '0', dailyQuota: 50 }] }, 'sims.0.slot'],
      [{ sims: [{ slot: true, dailyQuota: 50 }] }, 'sims.0.slot'],
      [{ name: null }, 'name'],
      [{ enabled: null }, 'enabled'],
    ] as const) {
      assertRefusedOn(assert, await patch(body), field)
    }
    const unchanged = await client.get(`/api/v1/devices/${device.id}`).header('x-api-key', testKeys.admin)
    assert.equal(unchanged.body().name, device.name)
    assert.deepEqual(
      unchanged.body().sims.map((sim: { dailyQuota: unknown }) => sim.dailyQuota),
      device.sims.map((sim: { dailyQuota: unknown }) => sim.dailyQuota)
    )
    // What the document says nullable stays nullable.
    ;(await patch({ sims: [{ slot: 0, dailyQuota: null }], textOptions: { uppercase: null } })).assertStatus(200)
    ;(await patch({ sims: [{ slot: 0, dailyQuota: 50 }] })).assertStatus(200)
  })

  test('POST /devices/pair: a SIM slot is a number', async ({ client, assert }) => {
    await clearDevices()
    const response = await client.post('/api/v1/devices/pair').json({ code: 'ABCDEFGH', name: 'Phone', sims: [{ slot: '0' }] })
    assertRefusedOn(assert, response, 'sims.0.slot')
  })

  test('POST /api-keys: limits are integers or null, never numeric strings or booleans', async ({ client, assert }) => {
    const session = await signInAs(client, 'superadmin')
    for (const [body, field] of [
      [{ callsPerMinute: '60' }, 'callsPerMinute'],
      [{ callsPerDay: true }, 'callsPerDay'],
      [{ allowedIps: null }, 'allowedIps'],
      [{ scope: null }, 'scope'],
    ] as const) {
      assertRefusedOn(assert, await asBrowser(client.post('/api/v1/api-keys'), session).json({ name: 'Typed', scope: 'read', ...body }), field)
    }
    ;(await asBrowser(client.post('/api/v1/api-keys'), session).json({ name: 'Typed', scope: 'read', callsPerMinute: null })).assertStatus(201)
  })

  test('PATCH /contacts, /conversations, /webhooks, /users: null only where the document says nullable', async ({ client, assert }) => {
    const created = await client.post('/api/v1/contacts').header('x-api-key', testKeys.admin).json({ phone: '+33612345670', company: 'Acme' })
    created.assertStatus(201)
    const contact = created.body().id
    for (const [body, field] of [
      [{ phone: null }, 'phone'],
      [{ blacklisted: null }, 'blacklisted'],
      [{ blacklisted: 'false' }, 'blacklisted'],
      [{ tags: null }, 'tags'],
    ] as const) {
      assertRefusedOn(assert, await client.patch(`/api/v1/contacts/${contact}`).header('x-api-key', testKeys.admin).json(body), field)
    }
    ;(await client.patch(`/api/v1/contacts/${contact}`).header('x-api-key', testKeys.admin).json({ company: null })).assertStatus(200)

    assertRefusedOn(assert, await client.patch('/api/v1/conversations/1').header('x-api-key', testKeys.admin).json({ pinned: null }), 'pinned')
    assertRefusedOn(assert, await client.patch('/api/v1/webhooks/1').header('x-api-key', testKeys.admin).json({ active: 'true' }), 'active')
    assertRefusedOn(assert, await client.patch('/api/v1/webhooks/1').header('x-api-key', testKeys.admin).json({ name: null }), 'name')
    const session = await signInAs(client, 'superadmin')
    assertRefusedOn(assert, await asBrowser(client.patch('/api/v1/users/1'), session).json({ role: null }), 'role')
  })
})
