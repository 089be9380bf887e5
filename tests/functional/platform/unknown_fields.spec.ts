import { test } from '@japa/runner'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging, messageCount, sendAs } from '#tests/helpers/messages'
import { unknownFieldsOf } from '#core/contract/unknown_fields'

test.group('Unknown fields in a request body', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearMessaging())

  test('a send with a misspelt field is refused and nothing is queued', async ({ client, assert }) => {
    const refused = await sendAs(client, { to: '+33612345678', body: 'Hello', simslot: 1 })
    refused.assertStatus(400)
    assert.equal(refused.body().error.code, 'VALIDATION_ERROR')
    const details = refused.body().error.details
    assert.deepInclude(details[0], { field: 'simslot', rule: 'unknown' })
    assert.match(details[0].message, /^Unknown field simslot; known here: .*\bsimSlot\b/)
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
    const refused = await client.post('/api/v1/devices/pairing-codes').header('x-api-key', testKeys.admin).json({ foo: 1 })
    refused.assertStatus(400)
    assert.deepInclude(refused.body().error.details[0], { field: 'foo', rule: 'unknown', message: 'Unknown field foo; this endpoint takes no fields' })
    ;(await client.post('/api/v1/devices/pairing-codes').header('x-api-key', testKeys.admin).json({})).assertStatus(201)
    ;(await client.post('/api/v1/devices/pairing-codes').header('x-api-key', testKeys.admin)).assertStatus(201)
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
