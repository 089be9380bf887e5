import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { asBrowser, signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearWebhooks, createWebhook } from '#tests/helpers/webhooks'

const valid = { name: 'CRM', url: 'https://crm.example.com/hooks/sms', events: ['message.received', 'message.sent'] }

test.group('Webhook subscriptions', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearWebhooks())

  const post = (client: any, body: unknown) => client.post('/api/v1/webhooks').header('x-api-key', testKeys.admin).json(body)
  const patch = (client: any, id: string, body: unknown) => client.patch(`/api/v1/webhooks/${id}`).header('x-api-key', testKeys.admin).json(body)
  const refusedField = (response: any) => response.body().error.details[0].field

  test('creation answers 201 with the webhook and a drawn secret, shown only there', async ({ client, assert }) => {
    const response = await post(client, valid)
    response.assertStatus(201)
    const { webhook, secret } = response.body()
    assert.containsSubset(webhook, { name: 'CRM', url: valid.url, method: 'POST', events: valid.events, headers: [], active: true, consecutiveFailures: 0 })
    assert.notProperty(webhook, 'disabledAt')
    assert.notProperty(webhook, 'secret')
    assert.isAtLeast(secret.length, 16)
    assert.isAtMost(secret.length, 200)

    const shown = await client.get(`/api/v1/webhooks/${webhook.id}`).header('x-api-key', testKeys.read)
    shown.assertStatus(200)
    assert.notProperty(shown.body(), 'secret')
    assert.notInclude(JSON.stringify(shown.body()), secret)
    const listed = await client.get('/api/v1/webhooks').header('x-api-key', testKeys.read)
    assert.deepEqual(listed.body().data.map((item: any) => item.id), [webhook.id])
    assert.notInclude(JSON.stringify(listed.body()), secret)

    // Stored sealed with the master key, never in clear.
    const row = await db.from('webhooks').where('id', webhook.id).first()
    assert.notInclude(row.secret_sealed, secret)
  })

  test('a given secret of 16 to 200 characters is kept; shorter or longer is refused', async ({ client, assert }) => {
    const given = 'x'.repeat(16)
    const created = await post(client, { ...valid, secret: given })
    created.assertStatus(201)
    assert.equal(created.body().secret, given)
    assert.equal((await post(client, { ...valid, name: 'B', secret: 'y'.repeat(200) })).status(), 201)
    for (const secret of ['z'.repeat(15), 'z'.repeat(201)]) {
      const refused = await post(client, { ...valid, name: `S${secret.length}`, secret })
      refused.assertStatus(400)
      assert.equal(refused.body().error.code, 'VALIDATION_ERROR')
      assert.equal(refusedField(refused), 'secret')
    }
  })

  test('every limit of the Webhook resource table is refused with details naming the field', async ({ client, assert }) => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...valid, name: '' }, 'name'],
      [{ ...valid, name: 'n'.repeat(81) }, 'name'],
      [{ ...valid, url: 'ftp://crm.example.com/x' }, 'url'],
      [{ ...valid, url: 'not a url' }, 'url'],
      [{ ...valid, url: `https://crm.example.com/${'p'.repeat(2000)}` }, 'url'],
      [{ name: 'x', events: ['message.sent'] }, 'url'],
      [{ ...valid, method: 'GET' }, 'method'],
      [{ ...valid, method: 'DELETE' }, 'method'],
      [{ ...valid, events: [] }, 'events'],
      [{ ...valid, events: undefined }, 'events'],
      [{ ...valid, events: ['message.sent', 'message.exploded'] }, 'events.1'],
      [{ ...valid, headers: Array.from({ length: 11 }, (_, index) => ({ name: `X-H${index}`, value: 'v' })) }, 'headers'],
      [{ ...valid, headers: [{ name: 'X-' + 'n'.repeat(99), value: 'v' }] }, 'headers.0.name'],
      [{ ...valid, headers: [{ name: 'X-Long', value: 'v'.repeat(501) }] }, 'headers.0.value'],
      [{ ...valid, headers: [{ name: 'Bad Name', value: 'v' }] }, 'headers.0.name'],
      [{ ...valid, headers: [{ name: 'X-Split', value: 'a\r\nX-Injected: 1' }] }, 'headers.0.value'],
    ]
    for (const [body, field] of cases) {
      const response = await post(client, body)
      assert.equal(response.status(), 400, JSON.stringify(body).slice(0, 80))
      assert.equal(response.body().error.code, 'VALIDATION_ERROR')
      assert.equal(refusedField(response), field, JSON.stringify(body).slice(0, 80))
    }
    assert.equal(await db.from('webhooks').count('* as n').first().then((row) => Number(row.n)), 0)
  })

  test('limits at their edges are accepted: 80-character name, 2,000-character url, 10 headers of 100/500', async ({ client }) => {
    const url = `https://crm.example.com/${'p'.repeat(2000 - 'https://crm.example.com/'.length)}`
    const headers = Array.from({ length: 10 }, (_, index) => ({ name: `X-${index}`.padEnd(100, 'h'), value: 'v'.repeat(500) }))
    const response = await post(client, { ...valid, name: 'n'.repeat(80), url, headers, method: 'patch' })
    response.assertStatus(201)
    response.assertBodyContains({ webhook: { method: 'PATCH' } })
  })

  test('the five reserved header names are refused in any letter case', async ({ client, assert }) => {
    for (const name of ['X-Signature', 'x-timestamp', 'X-DELIVERY-ID', 'x-Webhook-Event', 'content-TYPE']) {
      const response = await post(client, { ...valid, headers: [{ name: 'X-Tenant', value: 'a' }, { name, value: 'b' }] })
      assert.equal(response.status(), 400, name)
      assert.equal(refusedField(response), 'headers.1.name')
    }
  })

  test('a name is unique ignoring case: 409 VALIDATION_ERROR naming the field', async ({ client, assert }) => {
    await createWebhook(client, valid)
    const response = await post(client, { ...valid, name: 'crm' })
    response.assertStatus(409)
    assert.equal(response.body().error.code, 'VALIDATION_ERROR')
    assert.equal(refusedField(response), 'name')
    const other = await createWebhook(client, { ...valid, name: 'Other' })
    const renamed = await patch(client, other.webhook.id, { name: 'cRm' })
    renamed.assertStatus(409)
    // Renaming to itself with another case is fine.
    ;(await patch(client, other.webhook.id, { name: 'OTHER' })).assertStatus(200)
  })

  test('the real policy refuses a URL on the machine itself or link-local when it is saved', async ({ client, assert }) => {
    for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost/hook', 'http://[::1]/x', 'http://2130706433/x', 'http://169.254.169.254/latest']) {
      const response = await post(client, { ...valid, url })
      assert.equal(response.status(), 400, url)
      assert.equal(refusedField(response), 'url')
      assert.include(response.body().error.message, 'destination address is not allowed')
    }
    ;(await post(client, { ...valid, url: 'http://10.0.0.5/hook' })).assertStatus(201)
  })

  test('PATCH changes what it names; an empty secret keeps it, a new one replaces it', async ({ client, assert }) => {
    const { webhook } = await createWebhook(client, { ...valid, secret: 'first-secret-0123456789' })
    const before = (await db.from('webhooks').where('id', webhook.id).first()).secret_sealed
    const changed = await patch(client, webhook.id, { events: ['device.offline'], method: 'PUT', headers: [{ name: 'X-Tenant', value: '42' }], secret: '' })
    changed.assertStatus(200)
    assert.containsSubset(changed.body(), { name: 'CRM', events: ['device.offline'], method: 'PUT', headers: [{ name: 'X-Tenant', value: '42' }] })
    assert.notProperty(changed.body(), 'secret')
    assert.equal((await db.from('webhooks').where('id', webhook.id).first()).secret_sealed, before)
    ;(await patch(client, webhook.id, { secret: 'second-secret-0123456789' })).assertStatus(200)
    assert.notEqual((await db.from('webhooks').where('id', webhook.id).first()).secret_sealed, before)
    ;(await patch(client, webhook.id, { secret: 'short' })).assertStatus(400)
    ;(await patch(client, webhook.id, { method: 'GET' })).assertStatus(400)
  })

  test('unknown ids answer 404 NOT_FOUND', async ({ client }) => {
    for (const request of [
      client.get('/api/v1/webhooks/999999').header('x-api-key', testKeys.read),
      client.patch('/api/v1/webhooks/999999').header('x-api-key', testKeys.admin).json({ active: false }),
      client.delete('/api/v1/webhooks/abc').header('x-api-key', testKeys.admin),
      client.post('/api/v1/webhooks/deliveries/999999/replay').header('x-api-key', testKeys.admin),
    ]) {
      const response = await request
      response.assertStatus(404)
      response.assertBodyContains({ error: { code: 'NOT_FOUND' } })
    }
  })

  test('reads are open to read scope and every role; changes need admin scope or an operator session', async ({ client, assert }) => {
    const { webhook } = await createWebhook(client, valid)
    ;(await client.get('/api/v1/webhooks').header('x-api-key', testKeys.read)).assertStatus(200)
    const readonly = await signInAs(client, 'readonly')
    ;(await asBrowser(client.get(`/api/v1/webhooks/${webhook.id}`), readonly)).assertStatus(200)
    ;(await asBrowser(client.get('/api/v1/webhooks/deliveries'), readonly)).assertStatus(200)
    const refused = await asBrowser(client.patch(`/api/v1/webhooks/${webhook.id}`).json({ active: false }), readonly)
    refused.assertStatus(403)
    assert.equal(refused.body().error.code, 'FORBIDDEN_SCOPE')
    const byKey = await client.post('/api/v1/webhooks').header('x-api-key', testKeys.send).json({ ...valid, name: 'Send key' })
    byKey.assertStatus(403)
    const operator = await signInAs(client, 'operator')
    ;(await asBrowser(client.post('/api/v1/webhooks').json({ ...valid, name: 'By operator' }), operator)).assertStatus(201)
  })

  test('DELETE removes the webhook and its delivery log', async ({ client, assert }) => {
    const { webhook } = await createWebhook(client, valid)
    const now = new Date().toISOString()
    await db.table('webhook_deliveries').insert({
      delivery_id: 'd0000000-0000-4000-8000-000000000000',
      webhook_id: webhook.id,
      target_key: `webhook:${webhook.id}`,
      event: 'message.sent',
      body: '{}',
      status: 'success',
      attempts: 1,
      created_at: now,
      updated_at: now,
    })
    ;(await client.delete(`/api/v1/webhooks/${webhook.id}`).header('x-api-key', testKeys.admin)).assertStatus(204)
    ;(await client.get(`/api/v1/webhooks/${webhook.id}`).header('x-api-key', testKeys.read)).assertStatus(404)
    assert.equal(Number((await db.from('webhook_deliveries').count('* as n').first()).n), 0)
  })
})
