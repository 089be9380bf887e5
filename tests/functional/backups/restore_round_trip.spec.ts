import { test } from '@japa/runner'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execute, firstApiKey, query, startGateway, stop } from '#tests/helpers/gateway_process'
import { checkedFetch } from '#tests/helpers/answer_contract'

const TABLES = ['messages', 'conversations', 'contacts', 'users', 'api_keys']

/** A table of random bytes (about 16 MB) that makes a backup slow to check. */
const PADDING = `CREATE TABLE test_padding (bytes BLOB);
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 256)
  INSERT INTO test_padding SELECT randomblob(65536) FROM n;`

/**
 * Every row of the tables a restore must bring back, in id order. A key's last use moves when
 * the test calls the restored gateway with it, so that one column is left out.
 */
async function rowsOf(file: string) {
  const rows: Record<string, unknown[]> = {}
  for (const table of TABLES) {
    const all = await query<Record<string, unknown>>(file, `SELECT * FROM ${table} ORDER BY id`)
    rows[table] = all.map(({ last_used_at: _lastUsed, ...row }) => row)
  }
  return rows
}

test.group('Restore round trip on a real gateway process', (group) => {
  let root: string
  group.each.setup(() => {
    root = mkdtempSync(join(tmpdir(), 'restore-round-trip-'))
    return () => rmSync(root, { recursive: true, force: true })
  })

  test('backup, change, prepare the restore, restart: every row is back, an older schema is upgraded', async ({ assert }) => {
    const dataDir = join(root, 'data')
    let gateway = await startGateway(dataDir)
    const base = `http://127.0.0.1:${gateway.port}`
    const key = await firstApiKey(gateway.port)
    const call = (method: string, path: string, body?: unknown) =>
      checkedFetch(`${base}${path}`, { method, headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })

    assert.equal((await call('POST', '/api/v1/messages', { to: ['+33612345001', '+33612345002'], body: 'Before the backup' })).status, 202)
    assert.equal((await call('POST', '/api/v1/contacts', { phone: '+33612345003', firstName: 'Kept' })).status, 201)
    const backup = (await (await call('POST', '/api/v1/backups')).json()) as { name: string; outcome: string }
    assert.equal(backup.outcome, 'success')
    const backupFile = join(dataDir, 'backups', backup.name)
    const expected = await rowsOf(backupFile)
    assert.lengthOf(expected.messages, 2)

    // The backup is made older: the last migration is undone in it, as an earlier version had it.
    await execute(backupFile, "DROP TABLE backup_attempts; DELETE FROM adonis_schema WHERE name LIKE '%0009_backups_create_backup_attempts'")

    // Life goes on after the backup.
    assert.equal((await call('POST', '/api/v1/messages', { to: '+33612345004', body: 'After the backup' })).status, 202)
    const messages = (await (await call('GET', '/api/v1/messages')).json()) as { data: Array<{ id: string }> }
    assert.equal((await call('DELETE', `/api/v1/messages/${messages.data.at(-1)!.id}`)).status, 204)

    const prepared = await call('POST', `/api/v1/backups/${backup.name}/restore`)
    assert.equal(prepared.status, 202)
    assert.deepEqual(await prepared.json(), { restartRequired: true })
    assert.equal(await stop(gateway.child, 'SIGTERM'), 0)

    gateway = await startGateway(dataDir)
    const again = (method: string, path: string) => checkedFetch(`http://127.0.0.1:${gateway.port}${path}`, { method, headers: { 'x-api-key': key } })
    try {
      assert.deepEqual(await (await again('GET', '/api/v1/backups/restore')).json(), { pending: false })
      // Upgraded at start: the table the older copy lacked is there again.
      assert.equal((await again('GET', '/api/v1/backups/attempts')).status, 200)
      const preRestore = readdirSync(dataDir).filter((name) => name.startsWith('gateway.db.pre-restore-'))
      assert.lengthOf(preRestore, 1)
      const activity = (await (await again('GET', '/api/v1/activity?source=backups')).json()) as { data: Array<{ message: string }> }
      assert.isTrue(activity.data.some((entry) => entry.message.includes(`Backup ${backup.name} was restored at start`)))
    } finally {
      assert.equal(await stop(gateway.child, 'SIGTERM'), 0)
    }
    // Row by row, the restored database holds exactly what the backup held.
    assert.deepEqual(await rowsOf(join(dataDir, 'gateway.db')), expected)
    const applied = await query<{ name: string }>(join(dataDir, 'gateway.db'), 'SELECT name FROM adonis_schema')
    assert.isTrue(applied.some((row) => row.name.endsWith('0009_backups_create_backup_attempts')))
    assert.isFalse(existsSync(join(dataDir, 'restore', 'pending.db')))
  }).timeout(120_000)

  test('preparations sent at once, then a restart: the backup restored is the one announced', async ({ assert }) => {
    const dataDir = join(root, 'data')
    let gateway = await startGateway(dataDir)
    const key = await firstApiKey(gateway.port)
    const call = (port: number, method: string, path: string, body?: unknown) =>
      fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      })

    // Two backups that differ: the second holds one more contact.
    assert.equal((await call(gateway.port, 'POST', '/api/v1/contacts', { phone: '+33612345011', firstName: 'First' })).status, 201)
    const first = ((await (await call(gateway.port, 'POST', '/api/v1/backups')).json()) as { name: string }).name
    assert.equal((await call(gateway.port, 'POST', '/api/v1/contacts', { phone: '+33612345012', firstName: 'Second' })).status, 201)
    const second = ((await (await call(gateway.port, 'POST', '/api/v1/backups')).json()) as { name: string }).name
    assert.notEqual(first, second)
    // Big enough that checking one takes a while, as a real database does.
    for (const name of [first, second]) await execute(join(dataDir, 'backups', name), PADDING)
    const expected = { [first]: await rowsOf(join(dataDir, 'backups', first)), [second]: await rowsOf(join(dataDir, 'backups', second)) }
    assert.notDeepEqual(expected[first].contacts, expected[second].contacts)

    // A double click on one, a retry on the other, all at once.
    const answers = await Promise.all(
      [first, second, first, second, second, first, first, second].map((name) => call(gateway.port, 'POST', `/api/v1/backups/${name}/restore`))
    )
    const statuses = answers.map((answer) => answer.status)
    for (const answer of answers) {
      if (answer.status === 202) continue
      assert.equal(answer.status, 409)
      assert.equal(((await answer.json()) as { error: { code: string } }).error.code, 'RESTORE_IN_PROGRESS')
    }
    assert.include(statuses, 202)
    const announced = ((await (await call(gateway.port, 'GET', '/api/v1/backups/restore')).json()) as { pending: boolean; name: string }).name
    assert.oneOf(announced, [first, second])
    assert.equal(await stop(gateway.child, 'SIGTERM'), 0)

    gateway = await startGateway(dataDir)
    try {
      assert.deepEqual(await (await call(gateway.port, 'GET', '/api/v1/backups/restore')).json(), { pending: false })
      const activity = (await (await call(gateway.port, 'GET', '/api/v1/activity?source=backups')).json()) as { data: Array<{ message: string }> }
      assert.isTrue(activity.data.some((entry) => entry.message.includes(`Backup ${announced} was restored at start`)), JSON.stringify(activity.data))
    } finally {
      assert.equal(await stop(gateway.child, 'SIGTERM'), 0)
    }
    assert.deepEqual((await rowsOf(join(dataDir, 'gateway.db'))).contacts, expected[announced].contacts)
  }).timeout(120_000)
})
