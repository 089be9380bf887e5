import { test } from '@japa/runner'
import type { ApiClient } from '@japa/api-client'
import db from '@adonisjs/lucid/services/db'
import { asBrowser, signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging, sendAs, setLocalPrefix } from '#tests/helpers/messages'
import app from '@adonisjs/core/services/app'
import { statementsRunBy } from '#tests/helpers/sql_trace'
import { ContactBook } from '#modules/contacts/services/contact_book'

/** `count` contacts named `name`, numbered from +336 1000 0001 on (one statement); answers their numbers in id order. */
async function manyContacts(count: number, name = 'Many'): Promise<string[]> {
  await db.rawQuery(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO contacts (phone, first_name, created_at, updated_at) SELECT '+336' || (10000000 + i), ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM n`,
    [count, name]
  )
  return (await db.from('contacts').where('first_name', name).orderBy('id').select('phone')).map((row) => row.phone as string)
}

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
  const optedOut = async (client: ApiClient, id: string) => (await client.get(`/api/v1/contacts/${id}`).header('x-api-key', testKeys.read)).body().blacklisted as boolean
  const optOut = (client: ApiClient, body: unknown) => client.post('/api/v1/contacts/opt-out').header('x-api-key', testKeys.admin).json(body as any)
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

  test("everything the list's filters match is opted out, after a dry run that counts and changes nothing", async ({ client, assert }) => {
    const waiting = (await sendAs(client, { to: '+33612345678', body: 'Promo' })).body().accepted[0]
    const ada = (await client.post('/api/v1/contacts').header('x-api-key', testKeys.admin).json({ phone: '+33612345678', firstName: 'Ada' })).body().id
    const adam = (await client.post('/api/v1/contacts').header('x-api-key', testKeys.admin).json({ phone: '+33612345679', firstName: 'Adam', blacklisted: true })).body().id
    const bob = (await client.post('/api/v1/contacts').header('x-api-key', testKeys.admin).json({ phone: '+33612345670', firstName: 'Bob', company: 'Adverts' })).body().id
    const listed = (await client.get('/api/v1/contacts?q=ada').header('x-api-key', testKeys.read)).body().data.map((row: { id: string }) => row.id)
    assert.sameMembers(listed, [ada, adam])

    const dry = await optOut(client, { filter: { q: 'ada' }, dryRun: true })
    dry.assertStatus(200)
    assert.deepEqual(dry.body(), { matched: 2, changed: 1, skipped: { already_opted_out: 1 } })
    assert.isFalse(await optedOut(client, ada))
    assert.deepInclude(await message(client, waiting.id), { status: 'queued' })

    const done = await optOut(client, { filter: { q: 'ada' } })
    assert.deepEqual(done.body(), dry.body())
    assert.isTrue(await optedOut(client, ada))
    assert.isFalse(await optedOut(client, bob))
    assert.deepInclude(await message(client, waiting.id), { status: 'cancelled', errorCode: 'CONTACT_BLACKLISTED' })
    // The list's other filters: a number in its local form, the opt-out flag.
    await setLocalPrefix('+33')
    assert.deepEqual((await optOut(client, { filter: { phone: '0612345670', blacklisted: false }, dryRun: true })).body(), { matched: 1, changed: 1, skipped: {} })
    assert.deepEqual((await optOut(client, { filter: { blacklisted: false } })).body(), { matched: 1, changed: 1, skipped: {} })
    assert.isTrue(await optedOut(client, bob))
    assert.deepEqual((await optOut(client, { filter: { q: 'nobody' } })).body(), { matched: 0, changed: 0, skipped: {} })
    // A dry run by ids counts the same way.
    assert.deepEqual((await optOut(client, { contactIds: [ada, '999999'], dryRun: true })).body(), { matched: 2, changed: 0, skipped: { not_found: 1, already_opted_out: 1 } })
  })

  test('a filter matching more than 10,000 contacts is refused whole (422 TOO_MANY_CONTACTS); more than 1,000 are opted out in chunks', async ({ client, assert }) => {
    await db.rawQuery(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10001)
       INSERT INTO contacts (phone, first_name, created_at, updated_at) SELECT '+336' || (10000000 + i), 'Many', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM n`
    )
    for (const dryRun of [true, false]) {
      const answer = await optOut(client, { filter: { q: 'many' }, dryRun })
      answer.assertStatus(422)
      assert.equal(answer.body().error.code, 'TOO_MANY_CONTACTS')
      assert.deepEqual(answer.body().error.details, { limit: 10_000 })
    }
    assert.equal((await db.from('contacts').where('blacklisted', true).count('* as n').first()).n, 0)
    // 1,500 left: two transactions, one answer.
    await db.from('contacts').where('phone', '>', '+33610001500').delete()
    const done = await optOut(client, { filter: { q: 'many' } })
    done.assertStatus(200)
    assert.deepEqual(done.body(), { matched: 1500, changed: 1500, skipped: {} })
    assert.equal((await db.from('contacts').where('blacklisted', true).count('* as n').first()).n, 1500)
  })

  test('many numbers at once, over two chunks: every message still waiting for them is cancelled CONTACT_BLACKLISTED, and nothing else', async ({ client, assert }) => {
    const numbers = await manyContacts(1005)
    const other = await contact(client, '+33699999999')
    const waitingFor = [numbers[0], numbers[1], numbers[499], numbers[999], numbers[1000], numbers[1004]]
    const sent = (await sendAs(client, { to: [...waitingFor, '+33699999999', numbers[2]], body: 'Promo' })).body().accepted as Array<{ id: string; phone: string }>
    const again = (await sendAs(client, { to: numbers[0], body: 'Promo again' })).body().accepted[0].id as string
    const idTo = (to: string) => sent.find((message) => message.phone === to)!.id
    // Paused (a campaign's): withdrawn too. Handed to a phone whose kind cannot take it back, or
    // sent already: they go on. A contact opted out before, whose message waits: left as it was.
    await db.from('messages').where('id', idTo(numbers[1])).update({ status: 'paused' })
    await db.from('messages').where('id', idTo(numbers[499])).update({ ordered_at: '2026-01-01T00:00:00.000Z', device_id: '999999', sim_slot: 0 })
    await db.from('messages').where('id', idTo(numbers[999])).update({ status: 'sent' })
    await db.from('contacts').where('phone', numbers[2]).update({ blacklisted: true })

    const answer = await optOut(client, { filter: { q: 'many' } })
    assert.deepEqual(answer.body(), { matched: 1005, changed: 1004, skipped: { already_opted_out: 1 } })

    const cancelled = [again, idTo(numbers[0]), idTo(numbers[1]), idTo(numbers[1000]), idTo(numbers[1004])]
    const rows = await db.from('messages').select('id', 'status', 'error_code').orderBy('id')
    assert.lengthOf(rows, 9)
    for (const row of rows) {
      const expected = cancelled.includes(String(row.id))
        ? { status: 'cancelled', error_code: 'CONTACT_BLACKLISTED' }
        : { status: String(row.id) === idTo(numbers[999]) ? 'sent' : 'queued', error_code: null }
      assert.deepEqual({ status: row.status, error_code: row.error_code }, expected, `message ${row.id}`)
    }
    assert.isFalse(await optedOut(client, other))
    assert.equal((await db.from('contacts').where('blacklisted', true).count('* as n').first()).n, 1005)
  })

  test('a chunk of 1,000 opt-outs is a handful of statements, however many messages wait for the numbers', async ({ client, assert }) => {
    const numbers = await manyContacts(1000)
    for (let from = 0; from < numbers.length; from += 500) (await sendAs(client, { to: numbers.slice(from, from + 500), body: 'Promo' })).assertStatus(202)
    const ids = (await db.from('contacts').orderBy('id').select('id')).map((row) => Number(row.id))
    const book = await app.container.make(ContactBook)

    let outcome: unknown
    const statements = await statementsRunBy(async () => (outcome = await book.optOut(ids)))
    assert.deepEqual(outcome, { matched: 1000, changed: 1000, skipped: {} })
    assert.equal((await db.from('messages').where({ status: 'cancelled', error_code: 'CONTACT_BLACKLISTED' }).count('* as n').first()).n, 1000)
    // BEGIN, the contacts counted, their UPDATE … RETURNING, the phones whose kind takes orders
    // back, the messages' UPDATE, COMMIT: one contact at a time, it was three statements a contact.
    assert.lengthOf(statements, 6, statements.join('\n'))
  })

  test('contactIds or filter, exactly one; a filter takes only the list\'s fields', async ({ client, assert }) => {
    const id = await contact(client, '+33612345678')
    for (const body of [{ contactIds: [id], filter: { q: 'x' } }, { dryRun: true }, { filter: { q: '' } }, { filter: { blacklisted: 'maybe' } }, { filter: { q: 'x' }, dryRun: 'yes' }]) {
      const answer = await optOut(client, body)
      answer.assertStatus(400)
      assert.equal(answer.body().error.code, 'VALIDATION_ERROR', JSON.stringify(body))
    }
    assert.isFalse(await optedOut(client, id))
  })
})
