import { test } from '@japa/runner'
import { readdirSync, existsSync, writeFileSync, mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import sqlite3 from 'sqlite3'
import db from '@adonisjs/lucid/services/db'
import { DataFolder } from '#core/data_folder/data_folder'
import { asBrowser, signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging, sendAs } from '#tests/helpers/messages'
import { checkedFetch } from '#tests/helpers/answer_contract'

const HEADERS = {
  messages: 'id,conversationId,direction,phone,body,encoding,segments,status,errorCode,deviceId,simSlot,attempts,createdAt,sentAt,deliveredAt,failedAt',
  contacts: 'id,phone,firstName,lastName,company,email,notes,tags,blacklisted,createdAt,updatedAt',
  conversations: 'id,phone,contactId,state,unreadCount,pinned,archived,assignedTo,createdAt,lastMessageAt',
}

test.group('Exports', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearMessaging())

  const download = (client: any, path: string, key = testKeys.admin) => client.get(path).header('x-api-key', key)

  test('an empty export is its header line in CSV and [] in JSON: {$self}')
    .with(['messages', 'contacts', 'conversations'] as const)
    .run(async ({ client, assert }, dataset) => {
      const csv = await download(client, `/api/v1/export/${dataset}`)
      csv.assertStatus(200)
      assert.equal(csv.header('content-type'), 'text/csv; charset=utf-8')
      assert.match(csv.header('content-disposition'), new RegExp(`^attachment; filename="${dataset}-\\d{8}-\\d{6}\\.csv"$`))
      assert.equal(csv.text(), `${HEADERS[dataset]}\n`)
      const json = await download(client, `/api/v1/export/${dataset}?format=json`)
      json.assertStatus(200)
      assert.equal(json.header('content-type'), 'application/json; charset=utf-8')
      assert.equal(json.text(), '[]')
    })

  test('messages: every column in the documented order, oldest first, missing dates empty', async ({ client, assert }) => {
    const first = (await sendAs(client, { to: '+33612345678', body: 'Hello, "friend"\nsee you' })).body().accepted[0]
    const second = (await sendAs(client, { to: '+33699999999', body: 'Second' })).body().accepted[0]
    await db.from('messages').where('id', first.id).update({ created_at: '2026-01-01T08:00:00.000Z', status: 'delivered', device_id: '4', sim_slot: 1, attempts: 1, sent_at: '2026-01-01T08:00:05.000Z', delivered_at: '2026-01-01T08:00:09.000Z' })
    await db.from('messages').where('id', second.id).update({ created_at: '2026-01-02T08:00:00.000Z', status: 'failed', error_code: 'SIM_REFUSED', attempts: 4, failed_at: '2026-01-02T09:00:00.000Z' })

    const csv = (await download(client, '/api/v1/export/messages')).text()
    assert.equal(
      csv,
      [
        HEADERS.messages,
        `${first.id},${first.conversationId},out,+33612345678,"Hello, ""friend""\nsee you",gsm7,1,delivered,,4,1,1,2026-01-01T08:00:00.000Z,2026-01-01T08:00:05.000Z,2026-01-01T08:00:09.000Z,`,
        `${second.id},${second.conversationId},out,+33699999999,Second,gsm7,1,failed,SIM_REFUSED,,,4,2026-01-02T08:00:00.000Z,,,2026-01-02T09:00:00.000Z`,
        '',
      ].join('\n')
    )
    const json = JSON.parse((await download(client, '/api/v1/export/messages?format=json')).text())
    assert.deepEqual(Object.keys(json[0]), HEADERS.messages.split(','))
    assert.deepEqual(json[0], {
      id: first.id,
      conversationId: first.conversationId,
      direction: 'out',
      phone: '+33612345678',
      body: 'Hello, "friend"\nsee you',
      encoding: 'gsm7',
      segments: 1,
      status: 'delivered',
      errorCode: null,
      deviceId: '4',
      simSlot: 1,
      attempts: 1,
      createdAt: '2026-01-01T08:00:00.000Z',
      sentAt: '2026-01-01T08:00:05.000Z',
      deliveredAt: '2026-01-01T08:00:09.000Z',
      failedAt: null,
    })
    assert.equal(json[1].id, second.id)
  })

  test('contacts: every column, tags joined by ; and quoting of commas and quotes', async ({ client, assert }) => {
    const created = await client.post('/api/v1/contacts').header('x-api-key', testKeys.admin).json({
      phone: '+33611111111',
      firstName: 'Anne',
      lastName: "O'Neil, Jr",
      company: 'ACME "Paris"',
      tags: ['vip', 'paris'],
      blacklisted: true,
    })
    created.assertStatus(201)
    const contact = created.body()
    const csv = (await download(client, '/api/v1/export/contacts')).text()
    assert.equal(csv, `${HEADERS.contacts}\n${contact.id},+33611111111,Anne,"O'Neil, Jr","ACME ""Paris""",,,vip;paris,true,${contact.createdAt},${contact.updatedAt}\n`)
    const same = (await download(client, '/api/v1/contacts/export')).text()
    assert.equal(same, csv)
    const json = JSON.parse((await download(client, '/api/v1/contacts/export?format=json')).text())
    assert.deepEqual(json[0].tags, ['vip', 'paris'])
    assert.strictEqual(json[0].blacklisted, true)
  })

  test('CSV cells a spreadsheet would run as formulas start with an apostrophe; phone numbers and JSON stay as they are', async ({ client, assert }) => {
    const created = await client.post('/api/v1/contacts').header('x-api-key', testKeys.admin).json({
      phone: '+33622222222',
      firstName: '=HYPERLINK("http://example.test","x")',
      lastName: '@SUM(A1)',
      company: '-2+3',
      notes: '+ not a number',
      tags: ['=cmd', 'ok'],
    })
    created.assertStatus(201)
    const contact = created.body()
    const csv = (await download(client, '/api/v1/export/contacts')).text()
    assert.equal(
      csv,
      `${HEADERS.contacts}\n${contact.id},+33622222222,"'=HYPERLINK(""http://example.test"",""x"")",'@SUM(A1),'-2+3,,'+ not a number,'=cmd;ok,false,${contact.createdAt},${contact.updatedAt}\n`
    )
    const json = JSON.parse((await download(client, '/api/v1/contacts/export?format=json')).text())
    assert.equal(json[0].firstName, '=HYPERLINK("http://example.test","x")')
    assert.deepEqual(json[0].tags, ['=cmd', 'ok'])
  })

  test('conversations: every column, no message text', async ({ client, assert }) => {
    const sent = (await sendAs(client, { to: '+33622222222', body: 'Private words here' })).body().accepted[0]
    const csv = (await download(client, '/api/v1/export/conversations')).text()
    const [header, line] = csv.trim().split('\n')
    assert.equal(header, HEADERS.conversations)
    assert.match(line, new RegExp(`^${sent.conversationId},\\+33622222222,,open,0,false,false,,[0-9T:.Z-]+,[0-9T:.Z-]+$`))
    assert.notInclude(csv, 'Private words')
    const json = await download(client, '/api/v1/export/conversations?format=json')
    assert.notInclude(json.text(), 'Private words')
  })

  test('a format other than csv or json is refused', async ({ client }) => {
    const response = await download(client, '/api/v1/export/messages?format=xml')
    response.assertStatus(400)
    response.assertBodyContains({ error: { code: 'VALIDATION_ERROR', details: [{ field: 'format' }] } })
  })

  test("messages: the list's filters and a selection's ids choose what is exported, in the same order and columns", async ({ client, assert }) => {
    const sent = async (to: string, body: string) => (await sendAs(client, { to, body })).body().accepted[0]
    const parcel = await sent('+33611111111', 'Your parcel is here')
    const meeting = await sent('+33622222222', 'Meeting at noon')
    const late = await sent('+33611111111', 'Parcel delayed')
    await db.from('messages').where('id', parcel.id).update({ created_at: '2026-01-01T08:00:00.000Z', status: 'failed', device_id: '4' })
    await db.from('messages').where('id', meeting.id).update({ created_at: '2026-01-02T08:00:00.000Z', status: 'failed' })
    await db.from('messages').where('id', late.id).update({ created_at: '2026-01-03T08:00:00.000Z', status: 'sent', device_id: '4' })
    const idsOf = async (query: string) => {
      const response = await download(client, `/api/v1/export/messages?format=json&${query}`)
      response.assertStatus(200)
      return JSON.parse(response.text()).map((row: { id: string }) => row.id)
    }

    assert.deepEqual(await idsOf('status=failed'), [parcel.id, meeting.id])
    assert.deepEqual(await idsOf('deviceId=4'), [parcel.id, late.id])
    assert.deepEqual(await idsOf('phone=%2B33611111111'), [parcel.id, late.id])
    assert.deepEqual(await idsOf('q=parcel'), [parcel.id, late.id])
    assert.deepEqual(await idsOf('q=parcel&status=failed'), [parcel.id])
    assert.deepEqual(await idsOf('since=2026-01-02T00:00:00.000Z&until=2026-01-03T00:00:00.000Z'), [meeting.id])
    assert.deepEqual(await idsOf('direction=in'), [])
    assert.deepEqual(await idsOf(`ids=${late.id},${parcel.id},999999`), [parcel.id, late.id])
    assert.deepEqual(await idsOf(`ids=${late.id},${parcel.id}&status=failed`), [parcel.id])
    // The list answers the same messages for the same filters (newest first there).
    const listed = (await client.get('/api/v1/messages?q=parcel&status=failed').header('x-api-key', testKeys.admin)).body().data
    assert.deepEqual(listed.map((row: { id: string }) => row.id), [parcel.id])

    const csv = (await download(client, '/api/v1/export/messages?status=sent')).text().split('\n')
    assert.equal(csv[0], HEADERS.messages)
    assert.match(csv[1], new RegExp(`^${late.id},${late.conversationId},out,\\+33611111111,Parcel delayed,gsm7,1,sent,`))
    assert.lengthOf(csv, 3)
  })

  test('messages: a refused filter or too many ids is answered before the download starts', async ({ client, assert }) => {
    const tooMany = Array.from({ length: 501 }, (_, index) => index + 1).join(',')
    const cases = [`ids=${tooMany}`, 'ids=1,,2', 'ids=a', 'status=lost', 'since=2026-13-45', 'q=%21%21', 'phone=not-a-number']
    for (const query of cases) {
      const response = await download(client, `/api/v1/export/messages?${query}`)
      assert.oneOf(response.status(), [400, 422], query)
      assert.match(response.header('content-type'), /application\/json/, query)
      assert.notExists(response.header('content-disposition'), query)
    }
    const fiveHundred = Array.from({ length: 500 }, (_, index) => index + 1).join(',')
    ;(await download(client, `/api/v1/export/messages?ids=${fiveHundred}`)).assertStatus(200)
  })

  test('every dashboard role exports data; a read key does not; the database is the superadmin only', async ({ client }) => {
    const readonly = await signInAs(client, 'readonly')
    ;(await asBrowser(client.get('/api/v1/export/messages'), readonly)).assertStatus(200)
    ;(await download(client, '/api/v1/export/messages', testKeys.read)).assertStatus(403)
    const operator = await signInAs(client, 'operator')
    ;(await asBrowser(client.get('/api/v1/export/database'), operator)).assertStatus(403)
  })

  test('the database export is a consistent SQLite copy, and its temporary file is removed', async ({ client, assert }) => {
    await sendAs(client, { to: '+33633333333', body: 'In the copy' })
    const response = await checkedFetch(`${process.env.GATEWAY_PUBLIC_URL}/api/v1/export/database`, { headers: { 'x-api-key': testKeys.admin } })
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('content-type'), 'application/vnd.sqlite3')
    assert.match(response.headers.get('content-disposition')!, /^attachment; filename="gateway-\d{8}-\d{6}\.db"$/)
    const body = Buffer.from(await response.arrayBuffer())
    assert.equal(body.subarray(0, 16).toString('latin1'), 'SQLite format 3\u0000')
    assert.equal(Number(response.headers.get('content-length')), body.length)

    const folder = mkdtempSync(join(tmpdir(), 'export-check-'))
    const file = join(folder, 'copy.db')
    writeFileSync(file, body)
    const copy = new sqlite3.Database(file, sqlite3.OPEN_READONLY)
    const query = (sql: string) => new Promise<any[]>((resolve, reject) => copy.all(sql, (error, rows) => (error ? reject(error) : resolve(rows))))
    assert.deepEqual(await query('PRAGMA integrity_check'), [{ integrity_check: 'ok' }])
    const rows = await query("SELECT phone FROM messages WHERE body = 'In the copy'")
    assert.deepEqual(rows, [{ phone: '+33633333333' }])
    assert.isAbove((await query('SELECT count(*) AS n FROM users'))[0].n, 0)
    await new Promise((resolve) => copy.close(resolve))

    const temporary = join(DataFolder.current().root, 'tmp')
    for (let wait = 0; wait < 50 && existsSync(temporary) && readdirSync(temporary).length; wait++) await new Promise((resolve) => setTimeout(resolve, 20))
    assert.deepEqual(readdirSync(temporary), [])
  })
})
