import { test } from '@japa/runner'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import db from '@adonisjs/lucid/services/db'
import { clearMessaging, sendAs, setLocalPrefix } from '#tests/helpers/messages'

const admin = () => testKeys.admin

test.group('Contacts', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearMessaging()
    await setLocalPrefix(null)
  })

  test('create, read, change and delete a contact with every export field', async ({ client, assert }) => {
    const created = await client.post('/api/v1/contacts').header('x-api-key', admin()).json({
      phone: '+33612345678',
      firstName: 'Ada',
      lastName: 'Lovelace',
      company: 'Engines',
      email: 'ada@example.test',
      notes: 'VIP',
      tags: ['vip', 'paris'],
    })
    created.assertStatus(201)
    assert.deepInclude(created.body(), { phone: '+33612345678', firstName: 'Ada', blacklisted: false, tags: ['vip', 'paris'] })
    assert.properties(created.body(), ['id', 'phone', 'firstName', 'lastName', 'company', 'email', 'notes', 'tags', 'blacklisted', 'createdAt', 'updatedAt'])
    const id = created.body().id

    const changed = await client.patch(`/api/v1/contacts/${id}`).header('x-api-key', admin()).json({ company: null, tags: ['vip'] })
    changed.assertStatus(200)
    assert.deepInclude(changed.body(), { company: null, tags: ['vip'], firstName: 'Ada' })
    ;(await client.get(`/api/v1/contacts/${id}`).header('x-api-key', testKeys.read)).assertStatus(200)
    const byTag = await client.get('/api/v1/contacts').qs({ tag: 'vip' }).header('x-api-key', testKeys.read)
    assert.lengthOf(byTag.body().data, 1)
    ;(await client.delete(`/api/v1/contacts/${id}`).header('x-api-key', admin())).assertStatus(204)
    ;(await client.get(`/api/v1/contacts/${id}`).header('x-api-key', testKeys.read)).assertStatus(404)
  })

  test('custom fields: kept by key, replaced as a whole, keys checked', async ({ client, assert }) => {
    const created = await client.post('/api/v1/contacts').header('x-api-key', admin()).json({ phone: '+33612345678', fields: { city: 'Paris', plan: 'gold' } })
    created.assertStatus(201)
    assert.deepEqual(created.body().fields, { city: 'Paris', plan: 'gold' })
    const plain = await client.post('/api/v1/contacts').header('x-api-key', admin()).json({ phone: '+33612345679' })
    assert.deepEqual(plain.body().fields, {})

    const changed = await client.patch(`/api/v1/contacts/${created.body().id}`).header('x-api-key', admin()).json({ fields: { city: 'Lyon' } })
    assert.deepEqual(changed.body().fields, { city: 'Lyon' })

    for (const fields of [{ name: 'x' }, { '2fast': 'x' }, { 'with space': 'x' }, { city: 'x'.repeat(501) }, { city: 3 }]) {
      const refused = await client.post('/api/v1/contacts').header('x-api-key', admin()).json({ phone: '+33612345670', fields })
      refused.assertStatus(400)
      assert.equal(refused.body().error.code, 'VALIDATION_ERROR', JSON.stringify(fields))
    }
    const tooMany = Object.fromEntries(Array.from({ length: 31 }, (_, index) => [`f${index}`, 'x']))
    ;(await client.post('/api/v1/contacts').header('x-api-key', admin()).json({ phone: '+33612345670', fields: tooMany })).assertStatus(400)
  })

  test('the phone is unique (409) and normalised to E.164', async ({ client, assert }) => {
    await setLocalPrefix('+33')
    const created = await client.post('/api/v1/contacts').header('x-api-key', admin()).json({ phone: '06 12 34 56 78' })
    assert.equal(created.body().phone, '+33612345678')
    const twice = await client.post('/api/v1/contacts').header('x-api-key', admin()).json({ phone: '+33612345678' })
    twice.assertStatus(409)
    assert.equal(twice.body().error.code, 'VALIDATION_ERROR')
    const bad = await client.post('/api/v1/contacts').header('x-api-key', admin()).json({ phone: 'nope' })
    bad.assertStatus(400)
    assert.equal(bad.body().error.code, 'INVALID_PHONE')
  })

  test('blacklisting cancels what still waits for that number with CONTACT_BLACKLISTED', async ({ client, assert }) => {
    const waiting = await sendAs(client, { to: ['+33612345678', '+447911123456'], body: 'Promo' })
    const contact = await client.post('/api/v1/contacts').header('x-api-key', admin()).json({ phone: '+33612345678' })
    await client.patch(`/api/v1/contacts/${contact.body().id}`).header('x-api-key', admin()).json({ blacklisted: true })
    const [toBlacklisted, toOther] = waiting.body().accepted
    const cancelled = await client.get(`/api/v1/messages/${toBlacklisted.id}`).header('x-api-key', testKeys.read)
    assert.deepInclude(cancelled.body(), { status: 'cancelled', errorCode: 'CONTACT_BLACKLISTED' })
    const untouched = await client.get(`/api/v1/messages/${toOther.id}`).header('x-api-key', testKeys.read)
    assert.equal(untouched.body().status, 'queued')
    // And no new send goes to it.
    ;(await sendAs(client, { to: '+33612345678', body: 'again' })).assertStatus(403)
  })

  test('opting out leaves alone a message already handed to a phone: it may be on its way', async ({ client, assert }) => {
    const waiting = await sendAs(client, { to: ['+33612345678', '+33612345678'], body: 'Promo' })
    const [handed, notYet] = waiting.body().accepted.map((message: { id: string }) => Number(message.id))
    await db.from('messages').where('id', handed).update({ ordered_at: new Date().toISOString(), device_id: '1', sim_slot: 0 })
    const contact = await client.post('/api/v1/contacts').header('x-api-key', admin()).json({ phone: '+33612345678', blacklisted: true })
    contact.assertStatus(201)
    const status = async (id: number) => (await client.get(`/api/v1/messages/${id}`).header('x-api-key', testKeys.read)).body()
    assert.deepInclude(await status(notYet), { status: 'cancelled', errorCode: 'CONTACT_BLACKLISTED' })
    assert.deepInclude(await status(handed), { status: 'queued', errorCode: null })
  })

  test("a new contact takes its number's conversation; a new number moves it there; deleting it leaves the conversation", async ({ client, assert }) => {
    const sent = await sendAs(client, { to: ['+33612345678', '+447911123456'], body: 'x' })
    const [french, british] = sent.body().accepted.map((message: { conversationId: string }) => message.conversationId)
    const contactOf = async (id: string) => (await client.get(`/api/v1/conversations/${id}`).header('x-api-key', testKeys.read)).body().contactId
    assert.isNull(await contactOf(french))

    const contact = await client.post('/api/v1/contacts').header('x-api-key', admin()).json({ phone: '+33612345678' })
    contact.assertStatus(201)
    assert.equal(await contactOf(french), contact.body().id)
    assert.isNull(await contactOf(british))

    ;(await client.patch(`/api/v1/contacts/${contact.body().id}`).header('x-api-key', admin()).json({ phone: '+447911123456' })).assertStatus(200)
    assert.isNull(await contactOf(french))
    assert.equal(await contactOf(british), contact.body().id)

    ;(await client.delete(`/api/v1/contacts/${contact.body().id}`).header('x-api-key', admin())).assertStatus(204)
    const conversation = await client.get(`/api/v1/conversations/${british}`).header('x-api-key', testKeys.read)
    conversation.assertStatus(200)
    assert.isNull(conversation.body().contactId)
  })

  test('q searches names, full name, company, e-mail and the digits of a number', async ({ client, assert }) => {
    const create = (fields: Record<string, unknown>) => client.post('/api/v1/contacts').header('x-api-key', admin()).json(fields)
    await create({ phone: '+33612345678', firstName: 'Ada', lastName: 'Lovelace', company: 'Analytical Engines' })
    await create({ phone: '+447911123456', firstName: 'Grace', lastName: 'Hopper', email: 'grace@navy.example' })
    await create({ phone: '+14155550100', firstName: '100%_real', lastName: null })
    const found = async (q: string) => {
      const answer = await client.get('/api/v1/contacts').qs({ q }).header('x-api-key', testKeys.read)
      answer.assertStatus(200)
      return answer.body().data.map((contact: { phone: string }) => contact.phone).sort()
    }
    assert.deepEqual(await found('lovel'), ['+33612345678'])
    assert.deepEqual(await found('ADA LOVE'), ['+33612345678'])
    assert.deepEqual(await found('engines'), ['+33612345678'])
    assert.deepEqual(await found('navy.example'), ['+447911123456'])
    assert.deepEqual(await found('07911 123'), [])
    assert.deepEqual(await found('7911 123'), ['+447911123456'])
    assert.deepEqual(await found('+44 7911'), ['+447911123456'])
    // LIKE wildcards typed by a person match themselves only.
    assert.deepEqual(await found('%_'), ['+14155550100'])
    assert.deepEqual(await found('nobody'), [])
    const tooLong = await client.get('/api/v1/contacts').qs({ q: 'x'.repeat(101) }).header('x-api-key', testKeys.read)
    tooLong.assertStatus(400)
    assert.equal(tooLong.body().error.details[0].field, 'q')
  })

  test('contact writes need admin scope; reads need read', async ({ client, assert }) => {
    const bySend = await client.post('/api/v1/contacts').header('x-api-key', testKeys.send).json({ phone: '+33612345678' })
    bySend.assertStatus(403)
    assert.equal(bySend.body().error.details.requiredScope, 'admin')
    ;(await client.get('/api/v1/contacts').header('x-api-key', testKeys.read)).assertStatus(200)
  })
})
