import { test } from '@japa/runner'
import { request as httpRequest } from 'node:http'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging, messageCount, sendAs } from '#tests/helpers/messages'
import { unknownFieldsOf } from '#core/contract/unknown_fields'

/** A raw request: the answer's size in characters is what is measured. */
function raw(method: string, path: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: Number(process.env.PORT), method, path, headers, agent: false }, (response) => {
      let text = ''
      response.on('data', (chunk) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode!, text }))
    })
    request.on('error', reject)
    request.end(body)
  })
}

test.group('Unknown fields in a request body', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearMessaging())

  test('a send with a misspelt field is refused and nothing is queued', async ({ client, assert }) => {
    const refused = await sendAs(client, { to: '+33612345678', body: 'Hello', simslot: 1 })
    refused.assertStatus(400)
    assert.equal(refused.body().error.code, 'VALIDATION_ERROR')
    const details = refused.body().error.details
    assert.deepInclude(details[0], { field: 'simslot', rule: 'unknown' })
    assert.match(details[0].message, /^Unknown field; known here: .*\bsimSlot\b/)
    assert.equal(refused.body().error.message, details[0].message)
    assert.equal(await messageCount(), 0)
    ;(await sendAs(client, { to: '+33612345678', body: 'Hello', simSlot: 1 })).assertStatus(202)
  })

  test('nested fields are checked too, with their path', async ({ client, assert }) => {
    const refused = await client
      .patch('/api/v1/settings')
      .header('x-api-key', testKeys.admin)
      .json({ sending: { prefixRules: [{ prefix: '+33', deviceId: '1', slot: 1 }] } })
    refused.assertStatus(400)
    assert.equal(refused.body().error.details[0].field, 'sending.prefixRules.0.slot')
    const device = await client.patch('/api/v1/devices/1').header('x-api-key', testKeys.admin).json({ name: 'x', colour: 'red' })
    device.assertStatus(400)
    assert.equal(device.body().error.details[0].field, 'colour')
  })

  test('an endpoint that takes no body refuses fields in one; an empty object is fine', async ({ client, assert }) => {
    const refused = await client.post('/api/v1/auth/logout').json({ foo: 1 })
    refused.assertStatus(400)
    assert.deepInclude(refused.body().error.details[0], { field: 'foo', rule: 'unknown', message: 'Unknown field; this endpoint takes no fields' })
    ;(await client.post('/api/v1/auth/logout').json({})).assertStatus(204)
    ;(await client.post('/api/v1/auth/logout')).assertStatus(204)
    // A body of optional fields refuses the others just the same, naming the ones it takes.
    const optional = await client.post('/api/v1/devices/pairing-codes').header('x-api-key', testKeys.admin).json({ foo: 1 })
    optional.assertStatus(400)
    assert.deepInclude(optional.body().error.details[0], { field: 'foo', rule: 'unknown', message: 'Unknown field; known here: app' })
  })

  test('the walk follows objects and lists, and leaves open objects alone', ({ assert }) => {
    const schema = {
      type: 'object',
      additionalProperties: false,
      properties: {
        a: { type: 'string' },
        list: { type: 'array', items: { type: 'object', additionalProperties: false, properties: { p: { type: 'string' } } } },
        open: { type: 'object', properties: { q: { type: 'string' } } },
        any: { anyOf: [{ type: 'string' }, { type: 'object' }] },
      },
    }
    assert.deepEqual(unknownFieldsOf({ a: 'x', list: [{ p: 'y' }, { p: 'z', r: 1 }], open: { q: 'w', extra: 2 }, any: { z: 1 }, b: 2 }, schema), [
      { field: 'list.1.r', known: ['p'] },
      { field: 'b', known: ['a', 'list', 'open', 'any'] },
    ])
    assert.deepEqual(unknownFieldsOf('text', schema), [])
    assert.deepEqual(unknownFieldsOf(null, schema), [])
  })
})

test.group('Unknown fields: the name is quoted once, at most 100 characters', (group) => {
  group.setup(() => useTestKeys())

  test('a 1.9 MB field name gets a small answer, also unauthenticated', async ({ assert }) => {
    const name = 'k'.repeat(1_900_000)
    for (const [path, headers] of [
      ['/api/v1/auth/login', {}],
      ['/api/v1/contacts', { 'x-api-key': testKeys.admin }],
    ] as const) {
      const answer = await raw('POST', path, { 'content-type': 'application/json', ...headers }, JSON.stringify({ [name]: 1 }))
      assert.equal(answer.status, 400)
      assert.isBelow(answer.text.length, 2_000)
      const { error } = JSON.parse(answer.text)
      assert.equal(error.code, 'VALIDATION_ERROR')
      assert.equal(error.details[0].rule, 'unknown')
      assert.equal(error.details[0].field, `${'k'.repeat(100)}…`)
      assert.equal(answer.text.split('k'.repeat(100)).length - 1, 1, 'the name is quoted once')
    }
  })

  test('a long nested path is cut too; a short name is still named', async ({ client, assert }) => {
    const response = await client
      .patch('/api/v1/settings')
      .header('x-api-key', testKeys.admin)
      .json({ sending: { prefixRules: [{ prefix: '+33', deviceId: '1', ['x'.repeat(500)]: 1 }] } })
    response.assertStatus(400)
    const [detail] = response.body().error.details
    assert.equal(detail.field, `sending.prefixRules.0.${'x'.repeat(100 - 'sending.prefixRules.0.'.length)}…`)
    const short = await client.post('/api/v1/contacts').header('x-api-key', testKeys.admin).json({ phone: '+33612345678', colour: 'red' })
    assert.deepInclude(short.body().error.details[0], { field: 'colour', rule: 'unknown' })
    assert.equal(JSON.stringify(short.body()).split('colour').length - 1, 1, 'the name is quoted once')
    assert.match(short.body().error.message, /known here: .*\bphone\b/)
  })
})

test.group('Unknown query parameters', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearMessaging())
  const get = (client: any, path: string) => client.get(path).header('x-api-key', testKeys.admin)

  test('a misspelt filter on the list is refused, naming it and the parameters known there', async ({ client, assert }) => {
    ;(await sendAs(client, { to: '+33612345678', body: 'Hello' })).assertStatus(202)
    const refused = await get(client, '/api/v1/messages?stauts=failed&limit=10')
    refused.assertStatus(400)
    assert.equal(refused.body().error.code, 'VALIDATION_ERROR')
    assert.deepInclude(refused.body().error.details[0], { field: 'stauts', rule: 'unknown' })
    assert.match(refused.body().error.message, /^Unknown query parameter; known here: .*\bstatus\b/)
    assert.lengthOf(refused.body().error.details, 1, 'limit is known')
    ;(await get(client, '/api/v1/messages?status=failed&limit=10')).assertStatus(200)
  })

  test('an export with a misspelt filter is refused before the download, not answered with every message', async ({ client, assert }) => {
    ;(await sendAs(client, { to: '+33612345678', body: 'Hello' })).assertStatus(202)
    const refused = await get(client, '/api/v1/export/messages?format=json&stauts=failed')
    refused.assertStatus(400)
    assert.deepInclude(refused.body().error.details[0], { field: 'stauts', rule: 'unknown' })
    const exported = await get(client, '/api/v1/export/messages?format=json&status=failed')
    exported.assertStatus(200)
    assert.deepEqual(JSON.parse(exported.text()), [])
  })

  test('an endpoint that takes no query refuses any, its name cut short', async ({ client, assert }) => {
    const long = 'x'.repeat(300)
    const refused = await get(client, `/api/v1/auth/me?${long}=1`)
    refused.assertStatus(400)
    assert.equal(refused.body().error.message, 'Unknown query parameter; this endpoint takes none')
    assert.equal(refused.body().error.details[0].field, `${'x'.repeat(100)}…`)
    assert.notInclude(refused.text(), 'x'.repeat(101))
  })

  test('outside /api/v1 parameters are taken as they come: /health, a short link with tracking parameters', async ({ client }) => {
    ;(await client.get('/health?probe=1')).assertStatus(200)
    ;(await client.get('/l/nosuchcode?utm_source=newsletter')).assertStatus(404)
  })
})
