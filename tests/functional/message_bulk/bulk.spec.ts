import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import type { ApiClient } from '@japa/api-client'
import { asBrowser, signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging, messageCount, sendAs } from '#tests/helpers/messages'

/** Many messages at once (docs/sending.md, Many messages at once): by ids or by the list's filters. */
test.group('Deleting and retrying many messages', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearMessaging()
    await db.from('activity_entries').where('source', 'messages').delete()
  })

  const bulk = (client: ApiClient, action: 'delete' | 'retry', body: unknown, key = testKeys.admin) =>
    client.post(`/api/v1/messages/bulk-${action}`).header('x-api-key', key).json(body as any)
  const statusOf = async (id: string) => (await db.from('messages').where('id', id).first())?.status ?? 'gone'

  async function sent(client: ApiClient, count: number, body = 'Bulk words here', to = '+33612345678'): Promise<string[]> {
    const answer = await sendAs(client, { to: Array.from({ length: count }, () => to), body })
    answer.assertStatus(202)
    return answer.body().accepted.map((message: { id: string }) => message.id)
  }
  const fail = (ids: string[]) => db.from('messages').whereIn('id', ids).update({ status: 'failed', attempts: 4, error_code: 'NO_SIGNAL', failed_at: '2026-05-01T10:00:00.000Z' })

  test('ids: the messages named are deleted, each as one delete is (message.deleted); an id of no message is counted, not refused', async ({ client: c, assert }) => {
    const [first, second, kept] = await sent(c, 3)
    const events = emitter.fake(['message.deleted'])
    let answer
    try {
      const operator = await signInAs(c, 'operator')
      answer = await asBrowser(c.post('/api/v1/messages/bulk-delete').json({ ids: [first, second, second, '999999'] }), operator)
      answer.assertStatus(200)
      events.assertEmittedCount('message.deleted', 2)
      events.assertEmitted('message.deleted', ({ data }) => data.id === first)
    } finally {
      emitter.restore()
    }
    assert.deepEqual(answer.body(), { matched: 3, changed: 2, skipped: { not_found: 1 } })
    assert.deepEqual([await statusOf(first), await statusOf(second), await statusOf(kept)], ['gone', 'gone', 'queued'])
    const entries = await db.from('activity_entries').where('source', 'messages')
    assert.lengthOf(entries, 1)
    assert.equal(entries[0].kind, 'messages.deleted')
    assert.equal(entries[0].message, 'Deleted 2 of 3 messages chosen by selection (1 not found)')
    assert.match(entries[0].actor, /^account:/)
    assert.deepEqual(JSON.parse(entries[0].details), { by: 'ids', matched: 3, changed: 2, skipped: { not_found: 1 } })
  })

  test('filter: a retry queues again only the failed outgoing messages it matches (q included); a dry run changes nothing', async ({ client: c, assert }) => {
    const failed = await sent(c, 3, 'Invoice ready for you')
    const queued = await sent(c, 2, 'Invoice ready for you')
    const other = await sent(c, 2, 'Something else entirely')
    await fail([...failed, other[0]])

    const dry = await bulk(c, 'retry', { filter: { q: 'invoice' }, dryRun: true }, testKeys.send)
    dry.assertStatus(200)
    assert.deepEqual(dry.body(), { matched: 5, changed: 3, skipped: { not_failed: 2 } })
    assert.equal(await statusOf(failed[0]), 'failed')
    assert.lengthOf(await db.from('activity_entries').where('source', 'messages'), 0)

    const done = await bulk(c, 'retry', { filter: { q: 'invoice', direction: 'out' } }, testKeys.send)
    done.assertStatus(200)
    assert.deepEqual(done.body(), { matched: 5, changed: 3, skipped: { not_failed: 2 } })
    for (const id of failed) assert.deepInclude(await db.from('messages').where('id', id).first(), { status: 'queued', attempts: 0, error_code: null })
    for (const id of queued) assert.equal(await statusOf(id), 'queued')
    assert.equal(await statusOf(other[0]), 'failed')
    const [entry] = await db.from('activity_entries').where('source', 'messages')
    assert.equal(entry.kind, 'messages.retried')
    assert.equal(entry.message, 'Retried 3 of 5 messages chosen by filter (2 not failed)')
    // No word of the filter reaches the log.
    assert.notInclude(entry.details, 'invoice')

    // Retried again: none is failed now.
    assert.deepEqual((await bulk(c, 'retry', { ids: failed }, testKeys.send)).body(), { matched: 3, changed: 0, skipped: { not_failed: 3 } })
  })

  test('filter: a delete takes every message the filters match, and the number as the list takes it', async ({ client: c, assert }) => {
    const mine = await sent(c, 3, 'Hello', '+33612345678')
    const theirs = await sent(c, 2, 'Hello', '+447911123456')
    const answer = await bulk(c, 'delete', { filter: { phone: '+33612345678', status: 'queued' } })
    answer.assertStatus(200)
    assert.deepEqual(answer.body(), { matched: 3, changed: 3, skipped: {} })
    for (const id of mine) assert.equal(await statusOf(id), 'gone')
    for (const id of theirs) assert.equal(await statusOf(id), 'queued')
    // Matching nothing is no refusal.
    assert.deepEqual((await bulk(c, 'delete', { filter: { status: 'delivered' } })).body(), { matched: 0, changed: 0, skipped: {} })
    const bad = await bulk(c, 'delete', { filter: { phone: 'not a number' } })
    bad.assertStatus(400)
    assert.equal(bad.body().error.code, 'INVALID_PHONE')
  })

  test('refusals in the error format: neither or both of ids and filter, over 1,000 ids, an unknown filter, a string dryRun', async ({ client: c, assert }) => {
    const [id] = await sent(c, 1)
    for (const body of [{}, { ids: [id], filter: {} }, { ids: [] }, { ids: Array.from({ length: 1001 }, (_, i) => String(i + 1)) }, { ids: [1] }, { filter: { colour: 'red' } }, { ids: [id], dryRun: 'true' }, { action: 'delete', ids: [id] }]) {
      const answer = await bulk(c, 'delete', body)
      answer.assertStatus(400)
      assert.equal(answer.body().error.code, 'VALIDATION_ERROR', JSON.stringify(body).slice(0, 80))
    }
    assert.equal(await statusOf(id), 'queued')
  })

  test('a filter matching more than 10,000 messages is refused whole: 422 TOO_MANY_MESSAGES, nothing changed', async ({ client: c, assert }) => {
    const [id] = await sent(c, 1)
    await fail([id])
    // Copies of the one sent, written in one statement (the list, not the send, is under test).
    const columns = (await db.rawQuery(`SELECT name FROM pragma_table_info('messages') WHERE name <> 'id'`)).map((row: { name: string }) => row.name).join(', ')
    await db.rawQuery(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
       INSERT INTO messages (${columns}) SELECT ${columns} FROM messages, n WHERE messages.id = ?`,
      [id]
    )
    assert.equal(await messageCount(), 10_001)
    for (const action of ['delete', 'retry'] as const) {
      const answer = await bulk(c, action, { filter: {} })
      answer.assertStatus(422)
      assert.equal(answer.body().error.code, 'TOO_MANY_MESSAGES')
      assert.deepEqual(answer.body().error.details, { limit: 10_000 })
    }
    assert.equal(await messageCount(), 10_001)
    assert.equal((await db.from('messages').where('status', 'failed').count('* as n').first()).n, 10_001)
    // At the cap it is done, in one request.
    await db.from('messages').where('id', id).delete()
    const done = await bulk(c, 'retry', { filter: { status: 'failed' } })
    done.assertStatus(200)
    assert.deepEqual(done.body(), { matched: 10_000, changed: 10_000, skipped: {} })
  }).timeout(120_000)

  test('permissions are the single operations\': a viewer and a read key may neither; a send key retries, only an admin key deletes', async ({ client: c, assert }) => {
    const [id] = await sent(c, 1)
    await fail([id])
    const viewer = await signInAs(c, 'readonly')
    for (const action of ['delete', 'retry']) {
      const refused = await asBrowser(c.post(`/api/v1/messages/bulk-${action}`).json({ ids: [id] }), viewer)
      refused.assertStatus(403)
      assert.equal(refused.body().error.code, 'FORBIDDEN_SCOPE')
      ;(await bulk(c, action as 'delete', { ids: [id] }, testKeys.read)).assertStatus(403)
    }
    ;(await bulk(c, 'delete', { ids: [id] }, testKeys.send)).assertStatus(403)
    assert.equal(await statusOf(id), 'failed')
    ;(await bulk(c, 'retry', { ids: [id] }, testKeys.send)).assertStatus(200)
    ;(await bulk(c, 'delete', { ids: [id] }, testKeys.admin)).assertStatus(200)
    assert.equal(await statusOf(id), 'gone')
  })
})
