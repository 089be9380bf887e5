import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import { useManualClock } from '#tests/helpers/clock'
import { asBrowser, signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging, sendAs } from '#tests/helpers/messages'

test.group('Reading, retrying and deleting messages', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearMessaging())

  async function seed(client: any) {
    const { clock, restore } = useManualClock('2026-05-01T08:00:00.000Z')
    try {
      const ids: string[] = []
      for (const [to, category] of [
        ['+33612345678', 'transactional'],
        ['+447911123456', 'info'],
        ['+33612345678', 'conversation'],
      ]) {
        const response = await sendAs(client, { to, body: 'x', category })
        ids.push(response.body().accepted[0].id)
        await clock.advance(3_600_000)
      }
      return ids
    } finally {
      restore()
    }
  }

  test('GET /messages lists newest first and filters by direction, status, phone, conversation, category, since, until', async ({ client, assert }) => {
    const [first, second, third] = await seed(client)
    const list = (query: Record<string, unknown>) =>
      client.get('/api/v1/messages').qs(query).header('x-api-key', testKeys.read).then((response: any) => {
        response.assertStatus(200)
        return response.body().data.map((message: any) => message.id)
      })
    assert.deepEqual(await list({}), [third, second, first])
    assert.deepEqual(await list({ direction: 'out' }), [third, second, first])
    assert.deepEqual(await list({ direction: 'in' }), [])
    assert.deepEqual(await list({ status: 'queued' }), [third, second, first])
    assert.deepEqual(await list({ status: 'failed' }), [])
    assert.deepEqual(await list({ phone: '+33612345678' }), [third, first])
    assert.deepEqual(await list({ category: 'info' }), [second])
    assert.deepEqual(await list({ since: '2026-05-01T09:00:00Z' }), [third, second])
    assert.deepEqual(await list({ until: '2026-05-01T09:00:00Z' }), [first])
    const conversationId = (await client.get(`/api/v1/messages/${first}`).header('x-api-key', testKeys.read)).body().conversationId
    assert.deepEqual(await list({ conversationId }), [third, first])
    const bad = await client.get('/api/v1/messages').qs({ direction: 'sideways' }).header('x-api-key', testKeys.read)
    bad.assertStatus(400)
  })

  test('GET /messages filters by the phone that sent or received (deviceId)', async ({ client, assert }) => {
    const [first, second, third] = await seed(client)
    // Routing is the devices module's: here the phones are set on the rows directly.
    await db.from('messages').whereIn('id', [first, third]).update({ device_id: '7' })
    await db.from('messages').where('id', second).update({ device_id: '12' })
    const list = async (query: Record<string, unknown>) => {
      const response = await client.get('/api/v1/messages').qs(query).header('x-api-key', testKeys.read)
      response.assertStatus(200)
      return response.body().data.map((message: any) => message.id)
    }
    assert.deepEqual(await list({ deviceId: '7' }), [third, first])
    assert.deepEqual(await list({ deviceId: '12' }), [second])
    assert.deepEqual(await list({ deviceId: '1' }), [])
    assert.deepEqual(await list({ deviceId: '7', limit: 1 }), [third])
    const bad = await client.get('/api/v1/messages').qs({ deviceId: 'phone-7' }).header('x-api-key', testKeys.read)
    bad.assertStatus(400)
    assert.equal(bad.body().error.details[0].field, 'deviceId')
  })

  test('GET /messages/{id}: every field; unknown or malformed id is 404', async ({ client, assert }) => {
    const [id] = await seed(client)
    const response = await client.get(`/api/v1/messages/${id}`).header('x-api-key', testKeys.read)
    response.assertStatus(200)
    assert.properties(response.body(), [
      'id', 'conversationId', 'direction', 'category', 'phone', 'body', 'encoding', 'segments', 'status', 'attempts',
      'createdAt', 'errorCode', 'holdReason', 'heldUntil', 'deviceId', 'simSlot', 'sentAt', 'deliveredAt', 'failedAt',
    ])
    for (const missing of ['999999', 'abc', '0', '1e3']) {
      const answer = await client.get(`/api/v1/messages/${missing}`).header('x-api-key', testKeys.read)
      answer.assertStatus(404)
      assert.equal(answer.body().error.code, 'NOT_FOUND')
    }
  })

  test('retry: a failed message goes back to queued with attempts restarted; any other status is 409', async ({ client, assert }) => {
    const [id] = await seed(client)
    const notFailed = await client.post(`/api/v1/messages/${id}/retry`).header('x-api-key', testKeys.send)
    notFailed.assertStatus(409)
    assert.equal(notFailed.body().error.code, 'MESSAGE_NOT_FAILED')

    await db.from('messages').where('id', id).update({ status: 'failed', attempts: 4, error_code: 'NO_SIGNAL', failed_at: '2026-05-01T10:00:00.000Z' })
    const retried = await client.post(`/api/v1/messages/${id}/retry`).header('x-api-key', testKeys.send)
    retried.assertStatus(200)
    assert.deepInclude(retried.body(), { status: 'queued', attempts: 0, errorCode: null, failedAt: null })
    ;(await client.post(`/api/v1/messages/${id}/retry`).header('x-api-key', testKeys.read)).assertStatus(403)
  })

  test('delete removes the message and emits message.deleted with its conversation', async ({ client }) => {
    const [id] = await seed(client)
    const conversationId = (await client.get(`/api/v1/messages/${id}`).header('x-api-key', testKeys.read)).body().conversationId
    const events = emitter.fake(['message.deleted'])
    try {
      const operator = await signInAs(client, 'operator')
      ;(await asBrowser(client.delete(`/api/v1/messages/${id}`), operator)).assertStatus(204)
      events.assertEmitted('message.deleted', ({ data }) => data.id === id && data.conversationId === conversationId)
    } finally {
      emitter.restore()
    }
    ;(await client.get(`/api/v1/messages/${id}`).header('x-api-key', testKeys.read)).assertStatus(404)
    const bySend = await client.delete(`/api/v1/messages/${id}`).header('x-api-key', testKeys.send)
    bySend.assertStatus(403)
  })
})
