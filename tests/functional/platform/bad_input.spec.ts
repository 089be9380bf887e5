import { test } from '@japa/runner'
import { randomUUID } from 'node:crypto'
import type { ApiResponse } from '@japa/api-client'
import { asBrowser, signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'

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
