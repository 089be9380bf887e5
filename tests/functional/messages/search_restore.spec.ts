import { test } from '@japa/runner'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execute, firstApiKey, query, startGateway, stop } from '#tests/helpers/gateway_process'
import { checkedFetch } from '#tests/helpers/answer_contract'

/** docs/sending.md, Search: the index is built for the rows of a database older than it. */
test.group('The search index of an older backup', (group) => {
  let root: string
  group.each.setup(() => {
    root = mkdtempSync(join(tmpdir(), 'search-restore-'))
    return () => rmSync(root, { recursive: true, force: true })
  })

  test('a backup made before the index is restored and upgraded at start: its messages are found by a word and by a part of their number', async ({ assert }) => {
    const dataDir = join(root, 'data')
    let gateway = await startGateway(dataDir)
    const key = await firstApiKey(gateway.port)
    const call = (port: number, method: string, path: string, body?: unknown) =>
      checkedFetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      })
    assert.equal((await call(gateway.port, 'POST', '/api/v1/messages', { to: ['+33612345001', '+33698765002'], body: 'Harvest festival on Sunday' })).status, 202)
    const backup = (await (await call(gateway.port, 'POST', '/api/v1/backups')).json()) as { name: string }
    // The backup is made older: as a version before the index had it.
    await execute(
      join(dataDir, 'backups', backup.name),
      `DROP TRIGGER messages_search_insert; DROP TRIGGER messages_search_delete; DROP TRIGGER messages_search_update;
       DROP TABLE messages_search;
       DELETE FROM adonis_schema WHERE name LIKE '%0028_messages_search_index' OR name LIKE '%0029_messages_search_on_change'`
    )
    assert.equal((await call(gateway.port, 'POST', `/api/v1/backups/${backup.name}/restore`)).status, 202)
    assert.equal(await stop(gateway.child, 'SIGTERM'), 0)

    gateway = await startGateway(dataDir)
    try {
      const found = async (q: string) => {
        const response = await call(gateway.port, 'GET', `/api/v1/messages?q=${encodeURIComponent(q)}`)
        assert.equal(response.status, 200)
        return ((await response.json()) as { data: Array<{ phone: string }> }).data.map((message) => message.phone).sort()
      }
      assert.deepEqual(await found('harvest'), ['+33612345001', '+33698765002'])
      assert.deepEqual(await found('5002'), ['+33698765002'])
      // And the triggers are back: a new message is found too.
      assert.equal((await call(gateway.port, 'POST', '/api/v1/messages', { to: '+33611111111', body: 'Harvest is over' })).status, 202)
      assert.deepEqual(await found('over'), ['+33611111111'])
      // With the update trigger of the version it now is: a rewrite only when the text or number changes.
      const [trigger] = await query<{ sql: string }>(join(dataDir, 'gateway.db'), `SELECT sql FROM sqlite_master WHERE name = 'messages_search_update'`)
      assert.match(trigger.sql, /WHEN NEW\.body IS NOT OLD\.body/)
    } finally {
      assert.equal(await stop(gateway.child, 'SIGTERM'), 0)
    }
  }).timeout(120_000)
})
