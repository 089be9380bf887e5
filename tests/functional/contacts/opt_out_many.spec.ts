import { test } from '@japa/runner'
import type { ApiClient } from '@japa/api-client'
import { asBrowser, signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging, sendAs, setLocalPrefix } from '#tests/helpers/messages'

/** POST /contacts/opt-out: many contacts opted out at once, each as PATCH blacklisted: true does. */
test.group('Opting out many contacts', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearMessaging()
    await setLocalPrefix(null)
  })

  const contact = async (client: ApiClient, phone: string, blacklisted = false) => {
    const created = await client.post('/api/v1/contacts').header('x-api-key', testKeys.admin).json({ phone, blacklisted })
    created.assertStatus(201)
    return created.body().id as string
  }
  const message = async (client: ApiClient, id: string) => (await client.get(`/api/v1/messages/${id}`).header('x-api-key', testKeys.read)).body()

  test('each contact named is opted out and what waits for its number is withdrawn; the rest are counted', async ({ client, assert }) => {
    const waiting = (await sendAs(client, { to: ['+33612345678', '+447911123456', '+33698765432'], body: 'Promo' })).body().accepted
    const first = await contact(client, '+33612345678')
    const second = await contact(client, '+447911123456')
    const already = await contact(client, '+4915112345678', true)
    const untouched = await contact(client, '+33698765432')

    const operator = await signInAs(client, 'operator')
    const answer = await asBrowser(client.post('/api/v1/contacts/opt-out').json({ contactIds: [first, second, second, already, '999999'] }), operator)
    answer.assertStatus(200)
    assert.deepEqual(answer.body(), { matched: 4, changed: 2, skipped: { not_found: 1, already_opted_out: 1 } })

    for (const id of [first, second, already]) {
      assert.isTrue((await client.get(`/api/v1/contacts/${id}`).header('x-api-key', testKeys.read)).body().blacklisted)
    }
    assert.isFalse((await client.get(`/api/v1/contacts/${untouched}`).header('x-api-key', testKeys.read)).body().blacklisted)
    assert.deepInclude(await message(client, waiting[0].id), { status: 'cancelled', errorCode: 'CONTACT_BLACKLISTED' })
    assert.deepInclude(await message(client, waiting[1].id), { status: 'cancelled', errorCode: 'CONTACT_BLACKLISTED' })
    assert.deepInclude(await message(client, waiting[2].id), { status: 'queued', errorCode: null })
    ;(await sendAs(client, { to: '+447911123456', body: 'again' })).assertStatus(403)
  })

  test('refusals: no ids, over 1,000, a number for an id; a viewer and a send key may not', async ({ client, assert }) => {
    const id = await contact(client, '+33612345678')
    for (const body of [{}, { contactIds: [] }, { contactIds: Array.from({ length: 1001 }, (_, i) => String(i + 1)) }, { contactIds: [1] }]) {
      const answer = await client.post('/api/v1/contacts/opt-out').header('x-api-key', testKeys.admin).json(body)
      answer.assertStatus(400)
      assert.equal(answer.body().error.code, 'VALIDATION_ERROR')
    }
    const viewer = await signInAs(client, 'readonly')
    ;(await asBrowser(client.post('/api/v1/contacts/opt-out').json({ contactIds: [id] }), viewer)).assertStatus(403)
    ;(await client.post('/api/v1/contacts/opt-out').header('x-api-key', testKeys.send).json({ contactIds: [id] })).assertStatus(403)
    assert.isFalse((await client.get(`/api/v1/contacts/${id}`).header('x-api-key', testKeys.read)).body().blacklisted)
  })
})
