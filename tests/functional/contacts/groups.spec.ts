import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { ContactAudience } from '#modules/contacts/public'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging } from '#tests/helpers/messages'
import type { ApiClient } from '@japa/api-client'

const admin = () => testKeys.admin

async function contact(client: ApiClient, phone: string, fields: Record<string, unknown> = {}) {
  const created = await client.post('/api/v1/contacts').header('x-api-key', admin()).json({ phone, ...fields })
  created.assertStatus(201)
  return created.body().id as string
}

async function group(client: ApiClient, name: string) {
  const created = await client.post('/api/v1/groups').header('x-api-key', admin()).json({ name })
  created.assertStatus(201)
  return created.body().id as string
}

async function clearGroups() {
  await db.from('contact_group_members').delete()
  await db.from('contact_groups').delete()
}

test.group('Contact groups', (group_) => {
  group_.setup(() => useTestKeys())
  group_.each.setup(async () => {
    await clearGroups()
    await clearMessaging()
  })

  test('create, read, rename, list with member counts and delete a group; a name is unique, case aside', async ({ client, assert }) => {
    const created = await client.post('/api/v1/groups').header('x-api-key', admin()).json({ name: 'VIP', description: 'Best customers' })
    created.assertStatus(201)
    assert.deepInclude(created.body(), { name: 'VIP', description: 'Best customers', memberCount: 0 })
    const id = created.body().id

    const twice = await client.post('/api/v1/groups').header('x-api-key', admin()).json({ name: 'vip' })
    twice.assertStatus(409)
    assert.equal(twice.body().error.details[0].field, 'name')

    const renamed = await client.patch(`/api/v1/groups/${id}`).header('x-api-key', admin()).json({ name: 'Gold', description: null })
    assert.deepInclude(renamed.body(), { name: 'Gold', description: null })
    await group(client, 'Newsletter')
    const listed = await client.get('/api/v1/groups').header('x-api-key', testKeys.read)
    assert.deepEqual(listed.body().data.map((entry: { name: string }) => entry.name), ['Newsletter', 'Gold'])
    const searched = await client.get('/api/v1/groups').qs({ q: 'gol' }).header('x-api-key', testKeys.read)
    assert.deepEqual(searched.body().data.map((entry: { name: string }) => entry.name), ['Gold'])

    ;(await client.delete(`/api/v1/groups/${id}`).header('x-api-key', admin())).assertStatus(204)
    const gone = await client.get(`/api/v1/groups/${id}`).header('x-api-key', testKeys.read)
    gone.assertStatus(404)
    assert.equal(gone.body().error.code, 'NOT_FOUND')
    ;(await client.post('/api/v1/groups').header('x-api-key', admin()).json({ name: '  ' })).assertStatus(400)
  })

  test('members are added and removed many at once; unknown ids and members already there are counted', async ({ client, assert }) => {
    const vip = await group(client, 'VIP')
    const ada = await contact(client, '+33612345678', { firstName: 'Ada' })
    const bob = await contact(client, '+33612345679', { firstName: 'Bob' })
    const added = await client.post(`/api/v1/groups/${vip}/members`).header('x-api-key', admin()).json({ contactIds: [ada, bob, ada, '999999'] })
    added.assertStatus(200)
    assert.deepEqual(added.body(), { added: 2, alreadyMembers: 0, notFound: 1 })
    const again = await client.post(`/api/v1/groups/${vip}/members`).header('x-api-key', admin()).json({ contactIds: [ada] })
    assert.deepEqual(again.body(), { added: 0, alreadyMembers: 1, notFound: 0 })
    assert.equal((await client.get(`/api/v1/groups/${vip}`).header('x-api-key', testKeys.read)).body().memberCount, 2)

    const members = await client.get(`/api/v1/groups/${vip}/members`).qs({ limit: 1 }).header('x-api-key', testKeys.read)
    assert.deepEqual(members.body().data.map((entry: { firstName: string }) => entry.firstName), ['Bob'])
    const next = await client.get(`/api/v1/groups/${vip}/members`).qs({ limit: 1, cursor: members.body().nextCursor }).header('x-api-key', testKeys.read)
    assert.deepEqual(next.body().data.map((entry: { firstName: string }) => entry.firstName), ['Ada'])
    assert.isNull(next.body().nextCursor)

    const removed = await client.post(`/api/v1/groups/${vip}/members/remove`).header('x-api-key', admin()).json({ contactIds: [bob, '999999'] })
    assert.deepEqual(removed.body(), { removed: 1 })
    const left = await client.get(`/api/v1/groups/${vip}/members`).header('x-api-key', testKeys.read)
    assert.deepEqual(left.body().data.map((entry: { id: string }) => entry.id), [ada])
    // Bob is still a contact.
    ;(await client.get(`/api/v1/contacts/${bob}`).header('x-api-key', testKeys.read)).assertStatus(200)

    const tooMany = await client.post(`/api/v1/groups/${vip}/members`).header('x-api-key', admin()).json({ contactIds: Array.from({ length: 10_001 }, (_, index) => String(index + 1)) })
    tooMany.assertStatus(400)
    const unknownGroup = await client.post('/api/v1/groups/999999/members').header('x-api-key', admin()).json({ contactIds: [ada] })
    unknownGroup.assertStatus(404)
  })

  test("everything the contacts list's filters match joins a group, after a dry run that counts and changes nothing", async ({ client, assert }) => {
    const vip = await group(client, 'VIP')
    const ada = await contact(client, '+33612345678', { firstName: 'Ada', tags: ['gold'] })
    const adam = await contact(client, '+33612345679', { firstName: 'Adam', tags: ['gold'] })
    await contact(client, '+33612345670', { firstName: 'Bob' })
    await client.post(`/api/v1/groups/${vip}/members`).header('x-api-key', admin()).json({ contactIds: [adam] })
    const add = (body: unknown) => client.post(`/api/v1/groups/${vip}/members`).header('x-api-key', admin()).json(body as any)

    const dry = await add({ filter: { tag: 'gold' }, dryRun: true })
    dry.assertStatus(200)
    assert.deepEqual(dry.body(), { added: 1, alreadyMembers: 1, notFound: 0 })
    assert.equal((await client.get(`/api/v1/groups/${vip}`).header('x-api-key', testKeys.read)).body().memberCount, 1)
    assert.deepEqual((await add({ filter: { tag: 'gold' } })).body(), dry.body())
    const members = (await client.get(`/api/v1/groups/${vip}/members`).header('x-api-key', testKeys.read)).body().data.map((entry: { id: string }) => entry.id)
    assert.sameMembers(members, [ada, adam])
    assert.deepEqual((await add({ filter: { q: 'bob' } })).body(), { added: 1, alreadyMembers: 0, notFound: 0 })
    assert.deepEqual((await add({ contactIds: [ada, '999999'], dryRun: true })).body(), { added: 0, alreadyMembers: 1, notFound: 1 })

    await db.rawQuery(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10001)
       INSERT INTO contacts (phone, first_name, created_at, updated_at) SELECT '+336' || (10000000 + i), 'Many', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM n`
    )
    const tooMany = await add({ filter: { q: 'many' } })
    tooMany.assertStatus(422)
    assert.equal(tooMany.body().error.code, 'TOO_MANY_CONTACTS')
    assert.equal((await client.get(`/api/v1/groups/${vip}`).header('x-api-key', testKeys.read)).body().memberCount, 3)
    const both = await add({ contactIds: [ada], filter: { q: 'bob' } })
    both.assertStatus(400)
    assert.equal(both.body().error.code, 'VALIDATION_ERROR')
  })

  test("a contact's groups are on the contact resource; deleting a group keeps its contacts; deleting a contact leaves the group", async ({ client, assert }) => {
    const vip = await group(client, 'VIP')
    const news = await group(client, 'Newsletter')
    const ada = await contact(client, '+33612345678')
    const bob = await contact(client, '+33612345679')
    for (const id of [vip, news]) await client.post(`/api/v1/groups/${id}/members`).header('x-api-key', admin()).json({ contactIds: [ada, bob] })

    const shown = await client.get(`/api/v1/contacts/${ada}`).header('x-api-key', testKeys.read)
    assert.deepEqual(shown.body().groups, [
      { id: news, name: 'Newsletter' },
      { id: vip, name: 'VIP' },
    ])
    const listed = await client.get('/api/v1/contacts').header('x-api-key', testKeys.read)
    assert.lengthOf(listed.body().data[0].groups, 2)

    ;(await client.delete(`/api/v1/groups/${vip}`).header('x-api-key', admin())).assertStatus(204)
    const after = await client.get(`/api/v1/contacts/${ada}`).header('x-api-key', testKeys.read)
    after.assertStatus(200)
    assert.deepEqual(after.body().groups, [{ id: news, name: 'Newsletter' }])

    ;(await client.delete(`/api/v1/contacts/${bob}`).header('x-api-key', admin())).assertStatus(204)
    assert.equal((await client.get(`/api/v1/groups/${news}`).header('x-api-key', testKeys.read)).body().memberCount, 1)
  })

  test('an audience counts each contact once across groups, contacts named and pages', async ({ client, assert }) => {
    const vip = await group(client, 'VIP')
    const news = await group(client, 'Newsletter')
    const empty = await group(client, 'Empty')
    const ids: string[] = []
    for (let index = 0; index < 7; index++) ids.push(await contact(client, `+3361234567${index}`, { firstName: `P${index}`, fields: { city: 'Paris' } }))
    await client.post(`/api/v1/groups/${vip}/members`).header('x-api-key', admin()).json({ contactIds: ids.slice(0, 4) })
    await client.post(`/api/v1/groups/${news}/members`).header('x-api-key', admin()).json({ contactIds: ids.slice(2, 6) })
    await client.patch(`/api/v1/contacts/${ids[1]}`).header('x-api-key', admin()).json({ blacklisted: true })

    const audience = new ContactAudience()
    const pages: number[][] = []
    for await (const page of audience.members({ groupIds: [Number(vip), Number(news), Number(empty), 999999], contactIds: [Number(ids[0]), Number(ids[6])] }, 3)) {
      pages.push(page.map((member) => member.contactId))
      for (const member of page) assert.deepInclude(member, { fields: { city: 'Paris' } })
    }
    assert.deepEqual(pages.flat(), ids.map(Number))
    assert.deepEqual(pages.map((page) => page.length), [3, 3, 1])
    const optedOut = await audience.optedOut(['+33612345671', '+33612345672', '+19995550000'])
    assert.deepEqual([...optedOut], ['+33612345671'])
    const none: unknown[] = []
    for await (const page of audience.members({ groupIds: [], contactIds: [] })) none.push(page)
    assert.lengthOf(none, 0)
  })

  test('an audience pages correctly past named contacts that were deleted', async ({ client, assert }) => {
    const ids: string[] = []
    for (let index = 0; index < 6; index++) ids.push(await contact(client, `+3361234568${index}`))
    const vip = await group(client, 'VIP')
    await client.post(`/api/v1/groups/${vip}/members`).header('x-api-key', admin()).json({ contactIds: ids.slice(4) })
    for (const id of ids.slice(0, 2)) await client.delete(`/api/v1/contacts/${id}`).header('x-api-key', admin())
    const seen: number[] = []
    for await (const page of new ContactAudience().members({ groupIds: [Number(vip)], contactIds: ids.slice(0, 4).map(Number) }, 2)) {
      assert.isAtMost(page.length, 2)
      seen.push(...page.map((member) => member.contactId))
    }
    assert.deepEqual(seen, ids.slice(2).map(Number))
  })
})
