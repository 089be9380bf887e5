import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging, setLocalPrefix } from '#tests/helpers/messages'

const admin = () => testKeys.admin

test.group('Templates', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await db.from('message_templates').delete()
    await clearMessaging()
    await setLocalPrefix(null)
  })

  test('create, read, change, list and delete a template; it answers its variables, encoding and segments', async ({ client, assert }) => {
    const created = await client.post('/api/v1/templates').header('x-api-key', admin()).json({ name: 'Welcome', body: 'Hi {{name|there}}, see you in {{city}}!' })
    created.assertStatus(201)
    assert.deepInclude(created.body(), { name: 'Welcome', encoding: 'gsm7', segments: 1 })
    assert.deepEqual(created.body().variables, [
      { key: 'name', fallback: 'there' },
      { key: 'city', fallback: null },
    ])
    const id = created.body().id

    const changed = await client.patch(`/api/v1/templates/${id}`).header('x-api-key', admin()).json({ body: 'Привет {{firstName}}' })
    assert.deepInclude(changed.body(), { encoding: 'ucs2', segments: 1, name: 'Welcome' })
    ;(await client.get(`/api/v1/templates/${id}`).header('x-api-key', testKeys.read)).assertStatus(200)
    await client.post('/api/v1/templates').header('x-api-key', admin()).json({ name: 'Reminder', body: 'Reminder' })
    const listed = await client.get('/api/v1/templates').header('x-api-key', testKeys.read)
    assert.deepEqual(listed.body().data.map((entry: { name: string }) => entry.name), ['Reminder', 'Welcome'])
    const searched = await client.get('/api/v1/templates').qs({ q: 'welc' }).header('x-api-key', testKeys.read)
    assert.lengthOf(searched.body().data, 1)

    ;(await client.delete(`/api/v1/templates/${id}`).header('x-api-key', admin())).assertStatus(204)
    ;(await client.get(`/api/v1/templates/${id}`).header('x-api-key', testKeys.read)).assertStatus(404)
  })

  test('bad templates are refused beside their field: blank or too long text, a name taken', async ({ client, assert }) => {
    await client.post('/api/v1/templates').header('x-api-key', admin()).json({ name: 'Welcome', body: 'Hi' })
    const taken = await client.post('/api/v1/templates').header('x-api-key', admin()).json({ name: 'WELCOME', body: 'Hi' })
    taken.assertStatus(409)
    assert.equal(taken.body().error.details[0].field, 'name')
    for (const body of ['   ', '', 'x'.repeat(1601)]) {
      const refused = await client.post('/api/v1/templates').header('x-api-key', admin()).json({ name: 'Other', body })
      refused.assertStatus(400)
      assert.equal(refused.body().error.details[0].field, 'body')
    }
    const missing = await client.post('/api/v1/templates').header('x-api-key', admin()).json({ name: 'Other' })
    missing.assertStatus(400)
  })

  test('the preview renders per contact and number, with encodings, segments, missing variables and totals', async ({ client, assert }) => {
    await setLocalPrefix('+33')
    const ada = await client.post('/api/v1/contacts').header('x-api-key', admin()).json({ phone: '+33612345678', firstName: 'Ada', fields: { city: 'Paris' } })
    const zoe = await client.post('/api/v1/contacts').header('x-api-key', admin()).json({ phone: '+33612345679', firstName: 'Zoé' })
    const template = await client.post('/api/v1/templates').header('x-api-key', admin()).json({ name: 'Welcome', body: 'Hi {{firstName|there}}, see you in {{city}}.' })

    const preview = await client
      .post('/api/v1/templates/preview')
      .header('x-api-key', testKeys.read)
      .json({ templateId: template.body().id, contactIds: [ada.body().id, zoe.body().id, '999999'], numbers: ['0612345678', '+447911123456'] })
    preview.assertStatus(200)
    const recipients = preview.body().recipients
    assert.deepEqual(
      recipients.map((entry: { body: string }) => entry.body),
      ['Hi Ada, see you in Paris.', 'Hi Zoé, see you in .', 'Hi Ada, see you in Paris.', 'Hi there, see you in .']
    )
    assert.deepInclude(recipients[0], { contactId: ada.body().id, phone: '+33612345678', encoding: 'gsm7', segments: 1, missing: [] })
    // é is in the GSM-7 alphabet; the missing city is pointed out, the name has a fallback.
    assert.deepInclude(recipients[1], { encoding: 'gsm7', missing: ['city'] })
    assert.deepInclude(recipients[3], { contactId: null, phone: '+447911123456', missing: ['city'] })
    assert.deepEqual(preview.body().totals, { recipients: 4, segments: 4, encodings: { gsm7: 4, ucs2: 0 } })
    assert.deepEqual(preview.body().notFound, ['999999'])

    const unsaved = await client.post('/api/v1/templates/preview').header('x-api-key', testKeys.read).json({ body: 'Привет {{name|друг}}' })
    assert.deepInclude(unsaved.body().recipients[0], { contactId: null, phone: null, body: 'Привет друг', encoding: 'ucs2' })

    const neither = await client.post('/api/v1/templates/preview').header('x-api-key', testKeys.read).json({ contactIds: [ada.body().id] })
    neither.assertStatus(400)
    const badNumber = await client.post('/api/v1/templates/preview').header('x-api-key', testKeys.read).json({ body: 'x', numbers: ['nope'] })
    badNumber.assertStatus(400)
    assert.equal(badNumber.body().error.code, 'INVALID_PHONE')
    assert.notInclude(JSON.stringify(badNumber.body()), 'nope')
    const unknown = await client.post('/api/v1/templates/preview').header('x-api-key', testKeys.read).json({ templateId: '999999' })
    unknown.assertStatus(404)
  })

  test('the custom field keys contacts use, most used first', async ({ client, assert }) => {
    await client.post('/api/v1/contacts').header('x-api-key', admin()).json({ phone: '+33612345678', fields: { city: 'Paris', plan: 'gold' } })
    await client.post('/api/v1/contacts').header('x-api-key', admin()).json({ phone: '+33612345679', fields: { city: 'Lyon' } })
    await client.post('/api/v1/contacts').header('x-api-key', admin()).json({ phone: '+33612345670' })
    const keys = await client.get('/api/v1/contacts/fields').header('x-api-key', testKeys.read)
    keys.assertStatus(200)
    assert.deepEqual(keys.body().data, [
      { key: 'city', contacts: 2 },
      { key: 'plan', contacts: 1 },
    ])
  })
})
