import { test } from '@japa/runner'
import { testKeys, useTestKeys, accountWithRole } from '#tests/helpers/callers'
import app from '@adonisjs/core/services/app'
import { MessageLedger } from '#modules/messages/public'
import { clearMessaging, sendAs } from '#tests/helpers/messages'

const admin = () => testKeys.admin

test.group('Conversations', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearMessaging())

  test('the first message creates the conversation, linked to its contact; no message text in it', async ({ client, assert }) => {
    const contact = await client.post('/api/v1/contacts').header('x-api-key', admin()).json({ phone: '+33612345678', firstName: 'Ada' })
    const sent = await sendAs(client, { to: '+33612345678', body: 'Secret text', category: 'info' })
    const id = sent.body().accepted[0].conversationId
    const conversation = await client.get(`/api/v1/conversations/${id}`).header('x-api-key', testKeys.read)
    conversation.assertStatus(200)
    assert.deepInclude(conversation.body(), {
      phone: '+33612345678',
      contactId: contact.body().id,
      state: 'open',
      unreadCount: 0,
      pinned: false,
      archived: false,
      assignedTo: null,
      category: 'info',
    })
    assert.notInclude(JSON.stringify(conversation.body()), 'Secret text')
    const messages = await client.get(`/api/v1/conversations/${id}/messages`).header('x-api-key', testKeys.read)
    assert.deepEqual(messages.body().data.map((message: any) => message.id), [sent.body().accepted[0].id])
  })

  test("a conversation's messages answer 404 for a conversation that does not exist, and only its own messages", async ({ client, assert }) => {
    const sent = await sendAs(client, { to: ['+33612345678', '+447911123456'], body: 'x' })
    const [first, second] = sent.body().accepted
    const missing = await client.get('/api/v1/conversations/999999/messages').header('x-api-key', testKeys.read)
    missing.assertStatus(404)
    assert.equal(missing.body().error.code, 'NOT_FOUND')
    const listed = await client.get(`/api/v1/conversations/${second.conversationId}/messages`).header('x-api-key', testKeys.read)
    listed.assertStatus(200)
    assert.deepEqual(listed.body().data.map((message: any) => message.id), [second.id])
    assert.notEqual(first.conversationId, second.conversationId)
  })

  test('PATCH pins, archives, assigns and marks read; the list filters on them', async ({ client, assert }) => {
    const sent = await sendAs(client, { to: ['+33612345678', '+447911123456'], body: 'x' })
    const [first, second] = sent.body().accepted.map((message: any) => message.conversationId)
    const operator = await accountWithRole('operator')
    const changed = await client
      .patch(`/api/v1/conversations/${first}`)
      .header('x-api-key', admin())
      .json({ pinned: true, archived: true, assignedTo: String(operator.id), markRead: true })
    changed.assertStatus(200)
    assert.deepInclude(changed.body(), { pinned: true, archived: true, assignedTo: String(operator.id), unreadCount: 0 })

    const ids = async (query: Record<string, unknown>) =>
      (await client.get('/api/v1/conversations').qs(query).header('x-api-key', testKeys.read)).body().data.map((item: any) => item.id)
    assert.deepEqual(await ids({ pinned: true }), [first])
    assert.deepEqual(await ids({ archived: false }), [second])
    assert.deepEqual(await ids({ state: 'open' }).then((list) => list.sort()), [first, second].sort())
    assert.deepEqual(await ids({ category: 'campaign' }), [])

    const unassign = await client.patch(`/api/v1/conversations/${first}`).header('x-api-key', admin()).json({ assignedTo: null })
    assert.isNull(unassign.body().assignedTo)
    const nobody = await client.patch(`/api/v1/conversations/${first}`).header('x-api-key', admin()).json({ assignedTo: '999999' })
    nobody.assertStatus(400)
    assert.equal(nobody.body().error.details[0].field, 'assignedTo')
    ;(await client.patch('/api/v1/conversations/999999').header('x-api-key', admin()).json({ pinned: true })).assertStatus(404)
  })

  test('unread=true lists the conversations with unread messages, unread=false those read to the end', async ({ client, assert }) => {
    const sent = await sendAs(client, { to: ['+33612345678', '+447911123456'], body: 'x' })
    const [answered, quiet] = sent.body().accepted.map((message: any) => message.conversationId)
    const received = await (await app.container.make(MessageLedger)).storeInbound({
      deviceId: 3, ref: 'r1', phone: '+33612345678', body: 'hi', simSlot: 0, receivedAt: new Date(), at: new Date(),
    })
    assert.equal(String(received!.conversationId), answered)

    const ids = async (query: Record<string, unknown>) => {
      const response = await client.get('/api/v1/conversations').qs(query).header('x-api-key', testKeys.read)
      response.assertStatus(200)
      return response.body().data.map((item: any) => item.id)
    }
    assert.deepEqual(await ids({ unread: true }), [answered])
    assert.deepEqual(await ids({ unread: false }), [quiet])
    await client.patch(`/api/v1/conversations/${answered}`).header('x-api-key', admin()).json({ markRead: true })
    assert.deepEqual(await ids({ unread: true }), [])
    assert.deepEqual((await ids({ unread: false })).sort(), [answered, quiet].sort())

    const wrong = await client.get('/api/v1/conversations').qs({ unread: 'maybe' }).header('x-api-key', testKeys.read)
    wrong.assertStatus(400)
    assert.equal(wrong.body().error.details[0].field, 'unread')
  })
})
