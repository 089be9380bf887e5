import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { useManualClock } from '#tests/helpers/clock'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging, sendAs } from '#tests/helpers/messages'

/** docs/sending.md, Search: `q` on the messages and conversations lists. */
test.group('Searching messages and conversations (q)', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearMessaging())

  /** Sends each [to, body] one minute apart; answers the ids in order. */
  async function seed(client: any, sends: Array<[string, string]>, from = '2026-05-01T08:00:00.000Z') {
    const { clock, restore } = useManualClock(from)
    try {
      const ids: string[] = []
      for (const [to, body] of sends) {
        const response = await sendAs(client, { to, body })
        response.assertStatus(202)
        ids.push(response.body().accepted[0].id)
        await clock.advance(60_000)
      }
      return ids
    } finally {
      restore()
    }
  }

  const search = async (client: any, q: string, query: Record<string, unknown> = {}) => {
    const response = await client.get('/api/v1/messages').qs({ q, ...query }).header('x-api-key', testKeys.read)
    response.assertStatus(200)
    return response.body()
  }
  const ids = async (client: any, q: string, query: Record<string, unknown> = {}) => (await search(client, q, query)).data.map((message: any) => message.id)

  test('a message is found by a word of its text, whatever its case and accents, and not by a word it lacks', async ({ client, assert }) => {
    const [parcel, invoice, cafe] = await seed(client, [
      ['+33612345678', 'Your parcel arrives tomorrow'],
      ['+33698765432', 'Invoice 2026-17 is due'],
      ['+447911123456', 'Rendez-vous au Café des Arts'],
    ])
    assert.deepEqual(await ids(client, 'parcel'), [parcel])
    assert.deepEqual(await ids(client, 'PARCEL tomorrow'), [parcel])
    assert.deepEqual(await ids(client, 'cafe'), [cafe])
    assert.deepEqual(await ids(client, 'invoice'), [invoice])
    assert.deepEqual(await ids(client, 'parcel invoice'), [])
    assert.deepEqual(await ids(client, 'parcels'), [])
    // With the other filters.
    assert.deepEqual(await ids(client, 'parcel', { phone: '+33612345678' }), [parcel])
    assert.deepEqual(await ids(client, 'parcel', { phone: '+33698765432' }), [])
  })

  test('a message is found by a part of its number: the last digits, the whole number with or without +, a middle part', async ({ client, assert }) => {
    const [first, second, third] = await seed(client, [
      ['+33612345678', 'one'],
      ['+33698765432', 'two'],
      ['+33612345678', 'three'],
    ])
    assert.deepEqual(await ids(client, '5678'), [third, first])
    assert.deepEqual(await ids(client, '+33612345678'), [third, first])
    assert.deepEqual(await ids(client, '33612345678'), [third, first])
    assert.deepEqual(await ids(client, '+33 6 98 76 54 32'), [second])
    assert.deepEqual(await ids(client, '9876'), [second])
    assert.deepEqual(await ids(client, '336'), [third, second, first])
    assert.deepEqual(await ids(client, '4444'), [])
  })

  test("a message is found by its contact's name", async ({ client, assert }) => {
    const [alice, bob, aliceAgain] = await seed(client, [
      ['+33612345678', 'hello'],
      ['+33698765432', 'hello'],
      ['+33612345678', 'again'],
    ])
    const created = await client.post('/api/v1/contacts').header('x-api-key', testKeys.admin).json({ phone: '+33612345678', firstName: 'Alice', lastName: 'Martin' })
    created.assertStatus(201)
    assert.deepEqual(await ids(client, 'alice'), [aliceAgain, alice])
    assert.deepEqual(await ids(client, 'Alice Martin'), [aliceAgain, alice])
    assert.deepEqual(await ids(client, 'mart'), [aliceAgain, alice])
    assert.deepEqual(await ids(client, 'Alice Dupont'), [])
    assert.notInclude(await ids(client, 'alice'), bob)
  })

  test('paging is stable: two pages, newest first, no duplicate and no gap, as without q', async ({ client, assert }) => {
    const sent = await seed(
      client,
      Array.from({ length: 7 }, (_, index): [string, string] => [`+3361234567${index}`, index % 2 === 0 ? `Reminder number ${index}` : `Other ${index}`])
    )
    const reminders = [sent[6], sent[4], sent[2], sent[0]]
    const first = await search(client, 'reminder', { limit: 2 })
    assert.deepEqual(first.data.map((message: any) => message.id), reminders.slice(0, 2))
    assert.isString(first.nextCursor)
    // A message arriving between two pages goes first, and moves nothing on the next page.
    await seed(client, [['+33612345679', 'Reminder arriving late']], '2026-05-01T09:00:00.000Z')
    const second = await search(client, 'reminder', { limit: 2, cursor: first.nextCursor })
    assert.deepEqual(second.data.map((message: any) => message.id), reminders.slice(2, 4))
    assert.isNull(second.nextCursor)
  })

  test('paging through many matches (past the few read by their ids) is the same order as the list without q', async ({ client, assert }) => {
    // 1,005 matches: more than the search reads by their ids, so the list walks its index.
    const conversation = await seed(client, [['+33612345678', 'first']])
    const message = await db.from('messages').where('id', conversation[0]).first()
    await db.rawQuery(
      `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < 1005)
       INSERT INTO messages (conversation_id, direction, category, phone, body, encoding, segments, status, attempts, created_at, updated_at)
       SELECT ?, 'out', 'transactional', '+33612345678', 'Bulk notice ' || n, 'gsm7', 1, 'sent', 1,
              strftime('%Y-%m-%dT%H:%M:%fZ', '2026-05-02T00:00:00', '+' || (n % 300) || ' seconds'), '2026-05-02T00:00:00.000Z'
       FROM seq`,
      [message.conversation_id]
    )
    const expected = (await db.rawQuery(`SELECT id FROM messages WHERE body LIKE 'Bulk notice %' ORDER BY created_at DESC, id DESC`)).map((row: any) => String(row.id))
    for (const q of ['notice', '5678']) {
      const seen: string[] = []
      let cursor: string | undefined
      do {
        const page = await search(client, q, { limit: 200, ...(cursor ? { cursor } : {}) })
        seen.push(...page.data.map((row: any) => row.id))
        cursor = page.nextCursor ?? undefined
      } while (cursor)
      assert.deepEqual(q === 'notice' ? seen : seen.filter((id) => id !== conversation[0]), expected, q)
    }
  }).timeout(60_000)

  test('FTS5 syntax in q is read as words, never a 500; q without a letter or digit, empty or too long is a VALIDATION_ERROR', async ({ client, assert }) => {
    const [quoted] = await seed(client, [['+33612345678', 'He said "NEAR" and OR, then AND-NOT']])
    for (const q of ['"near"', 'near(', 'NEAR(he said)', 'or*', 'AND', '^said', 'he + said', '-said', 'said)', '{said}', 'NOT said', 'body:said']) {
      const response = await client.get('/api/v1/messages').qs({ q }).header('x-api-key', testKeys.read)
      assert.equal(response.status(), 200, q)
      // Every word is in the text but "body" (a column filter in FTS5 syntax, a word here).
      assert.deepEqual(response.body().data.map((message: any) => message.id), q === 'body:said' ? [] : [quoted], q)
    }
    for (const q of ['***', '"', "'", '"()"', ' ', 'a'.repeat(101), 'one two three four five six seven eight nine']) {
      const response = await client.get('/api/v1/messages').qs({ q }).header('x-api-key', testKeys.read)
      response.assertStatus(400)
      assert.equal(response.body().error.code, 'VALIDATION_ERROR', q)
      assert.equal(response.body().error.details[0].field, 'q', q)
      // The answer never repeats what was searched.
      if (q.length > 3) assert.notInclude(JSON.stringify(response.body()), q.slice(0, 20), q)
      const conversations = await client.get('/api/v1/conversations').qs({ q }).header('x-api-key', testKeys.read)
      conversations.assertStatus(400)
    }
  })

  test('a deleted message is no longer found; a status change keeps a message found', async ({ client, assert }) => {
    const [kept, deleted] = await seed(client, [
      ['+33612345678', 'Shipment left the warehouse'],
      ['+33698765432', 'Shipment cancelled'],
    ])
    assert.deepEqual(await ids(client, 'shipment'), [deleted, kept])
    ;(await client.delete(`/api/v1/messages/${deleted}`).header('x-api-key', testKeys.admin)).assertStatus(204)
    assert.deepEqual(await ids(client, 'shipment'), [kept])
    assert.deepEqual(await ids(client, 'cancelled'), [])
    await db.from('messages').where('id', kept).update({ status: 'sent' })
    assert.deepEqual(await ids(client, 'warehouse'), [kept])
    // The index holds one row per message left.
    const [row] = await db.rawQuery(`SELECT COUNT(*) AS n FROM messages_search WHERE messages_search MATCH '"shipment"'`)
    assert.equal(Number(row.n), 1)
  })

  test('an order that keeps the text leaves the index untouched; a text an option changed is indexed again', async ({ client, assert }) => {
    const [id] = await seed(client, [['+33612345678', 'Parcel waiting at the depot']])
    // Every write to an FTS5 index changes its segments or its structure record.
    const indexData = () => db.rawQuery('SELECT id, hex(block) AS block FROM messages_search_data ORDER BY id')
    const before = await indexData()
    // As an order writes it: body and phone named, the same values.
    await db.from('messages').where('id', id).update({ body: 'Parcel waiting at the depot', phone: '+33612345678', ordered_at: new Date().toISOString() })
    assert.deepEqual(await indexData(), before)
    await db.from('messages').where('id', id).update({ body: 'Parcel collected from the depot' })
    assert.notDeepEqual(await indexData(), before)
    assert.deepEqual(await ids(client, 'collected'), [id])
    assert.deepEqual(await ids(client, 'waiting'), [])
    assert.deepEqual(await ids(client, '5678'), [id])
  })

  test('GET /conversations?q finds a conversation by a word of any of its messages, a part of its number or its contact name; rows carry the first words of the last message', async ({ client, assert }) => {
    await seed(client, [
      ['+33612345678', 'Your table for four is booked'],
      ['+33698765432', 'Welcome aboard'],
      ['+33612345678', 'See you tonight at eight, the terrace is ready and the wine is chilled already'],
    ])
    await client.post('/api/v1/contacts').header('x-api-key', testKeys.admin).json({ phone: '+33698765432', firstName: 'Bruno' })
    const list = async (query: Record<string, unknown>) => {
      const response = await client.get('/api/v1/conversations').qs(query).header('x-api-key', testKeys.read)
      response.assertStatus(200)
      return response.body().data as any[]
    }
    const phones = async (q: string) => (await list({ q })).map((conversation) => conversation.phone)
    assert.deepEqual(await phones('booked'), ['+33612345678'])
    assert.deepEqual(await phones('tonight'), ['+33612345678'])
    assert.deepEqual(await phones('5432'), ['+33698765432'])
    assert.deepEqual(await phones('+33 6 12'), ['+33612345678'])
    assert.deepEqual(await phones('bruno'), ['+33698765432'])
    assert.deepEqual(await phones('nothing'), [])
    const all = await list({})
    assert.deepEqual(
      all.map((conversation) => conversation.lastMessagePreview),
      ['See you tonight at eight, the terrace is ready and the wine…', 'Welcome aboard']
    )
    // The conversation itself and the conversations export carry no message text.
    const one = await client.get(`/api/v1/conversations/${all[0].id}`).header('x-api-key', testKeys.read)
    assert.notProperty(one.body(), 'lastMessagePreview')
    const exported = await client.get('/api/v1/export/conversations').header('x-api-key', testKeys.admin)
    exported.assertStatus(200)
    assert.include(exported.text(), '+33612345678')
    assert.notInclude(exported.text(), 'tonight')
  })
})
