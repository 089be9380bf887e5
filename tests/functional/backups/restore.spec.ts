import { test } from '@japa/runner'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execute } from '#tests/helpers/gateway_process'
import db from '@adonisjs/lucid/services/db'
import { DataFolder } from '#core/data_folder/data_folder'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { applyPendingRestore } from '#modules/backups/services/restore_swap'
import { createHash } from 'node:crypto'
import app from '@adonisjs/core/services/app'
import { RestoreGate } from '#modules/backups/services/restore_preparation'

/** A table of random bytes (about 16 MB) that makes a backup distinct and slow to check. */
const PADDING = (label: string) =>
  `CREATE TABLE test_padding (label TEXT, bytes BLOB);
   WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 256)
   INSERT INTO test_padding SELECT '${label}', randomblob(65536) FROM n;`

test.group('Restore preparation', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    rmSync(DataFolder.current().backupsDir, { recursive: true, force: true })
    rmSync(DataFolder.current().restoreDir, { recursive: true, force: true })
    await db.from('backup_attempts').delete()
    return () => rmSync(DataFolder.current().restoreDir, { recursive: true, force: true })
  })

  const admin = (request: any) => request.header('x-api-key', testKeys.admin)
  const takeBackup = async (client: any) => (await admin(client.post('/api/v1/backups'))).body().name as string

  test('a checked backup is prepared (202), shown as pending, replaced by another, cancelled (204)', async ({ client, assert }) => {
    const first = await takeBackup(client)
    copyFileSync(join(DataFolder.current().backupsDir, first), join(DataFolder.current().backupsDir, 'second.db'))
    assert.deepEqual((await admin(client.get('/api/v1/backups/restore'))).body(), { pending: false })

    const prepared = await admin(client.post(`/api/v1/backups/${first}/restore`))
    prepared.assertStatus(202)
    assert.deepEqual(prepared.body(), { restartRequired: true })
    assert.deepEqual((await admin(client.get('/api/v1/backups/restore'))).body(), { pending: true, name: first })
    // Nothing replaced yet: the live database still answers as before.
    ;(await admin(client.get('/api/v1/backups'))).assertStatus(200)

    ;(await admin(client.post('/api/v1/backups/second.db/restore'))).assertStatus(202)
    assert.deepEqual((await admin(client.get('/api/v1/backups/restore'))).body(), { pending: true, name: 'second.db' })
    assert.deepEqual(readdirSync(DataFolder.current().restoreDir).sort(), ['pending.db', 'pending.json'])

    ;(await admin(client.delete('/api/v1/backups/restore'))).assertStatus(204)
    assert.deepEqual((await admin(client.get('/api/v1/backups/restore'))).body(), { pending: false })
    assert.deepEqual(readdirSync(DataFolder.current().restoreDir), [])
  })

  test('preparations at once: one at a time (409 RESTORE_IN_PROGRESS), and what is announced is what was checked', async ({ client, assert }) => {
    const backupsDir = DataFolder.current().backupsDir
    const names = [await takeBackup(client), 'other.db']
    copyFileSync(join(backupsDir, names[0]), join(backupsDir, 'other.db'))
    // Two different backups, big enough that checking one takes a while.
    await execute(join(backupsDir, names[0]), PADDING('first'))
    await execute(join(backupsDir, 'other.db'), PADDING('other'))

    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, index) => admin(client.post(`/api/v1/backups/${names[(index + round) % 2]}/restore`)))
      )
      const statuses = answers.map((answer: any) => answer.status())
      for (const answer of answers) {
        if (answer.status() === 202) continue
        assert.equal(answer.status(), 409, JSON.stringify(answer.body()))
        assert.equal(answer.body().error.code, 'RESTORE_IN_PROGRESS')
      }
      assert.include(statuses, 202)
      assert.include(statuses, 409)

      const announced = (await admin(client.get('/api/v1/backups/restore'))).body()
      assert.isTrue(announced.pending)
      const restoreDir = DataFolder.current().restoreDir
      assert.deepEqual(readdirSync(restoreDir).sort(), ['pending.db', 'pending.json'], 'no temporary file left behind')
      const manifest = JSON.parse(readFileSync(join(restoreDir, 'pending.json'), 'utf8'))
      assert.equal(manifest.name, announced.name)
      const copy = readFileSync(join(restoreDir, 'pending.db'))
      assert.isTrue(copy.equals(readFileSync(join(backupsDir, announced.name))), 'the prepared copy is the announced backup')
      assert.equal(manifest.sha256, createHash('sha256').update(copy).digest('hex'))
    }
  }).timeout(60_000)

  test('while a preparation runs, another and a cancellation are refused; a cut-short one leaves no file behind', async ({ client, assert }) => {
    const name = await takeBackup(client)
    const gate = await app.container.make(RestoreGate)
    let finish = () => {}
    const running = gate.exclusive(() => new Promise<void>((resolve) => (finish = resolve)))
    try {
      for (const request of [client.post(`/api/v1/backups/${name}/restore`), client.delete('/api/v1/backups/restore')]) {
        const refused = await admin(request)
        refused.assertStatus(409)
        assert.equal(refused.body().error.code, 'RESTORE_IN_PROGRESS')
      }
      // An unknown name is still 404, whatever runs.
      ;(await admin(client.post('/api/v1/backups/nothing-here.db/restore'))).assertStatus(404)
    } finally {
      finish()
      await running
    }
    // A preparation cut short (the process stopped) left its temporary copy: the next one clears it.
    mkdirSync(DataFolder.current().restoreDir, { recursive: true })
    writeFileSync(join(DataFolder.current().restoreDir, 'pending-0a1b.db.partial'), 'cut short')
    ;(await admin(client.post(`/api/v1/backups/${name}/restore`))).assertStatus(202)
    assert.deepEqual(readdirSync(DataFolder.current().restoreDir).sort(), ['pending.db', 'pending.json'])
    ;(await admin(client.delete('/api/v1/backups/restore'))).assertStatus(204)
  })

  test('an unknown name is 404; a damaged or foreign file is 422 BACKUP_UNREADABLE', async ({ client, assert }) => {
    ;(await admin(client.post('/api/v1/backups/nothing-here.db/restore'))).assertStatus(404)
    mkdirSync(DataFolder.current().backupsDir, { recursive: true })
    writeFileSync(join(DataFolder.current().backupsDir, 'garbage.db'), 'this is not a database at all')
    await execute(join(DataFolder.current().backupsDir, 'foreign.db'), 'CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes VALUES (1, "x");')
    const name = await takeBackup(client)
    const damaged = join(DataFolder.current().backupsDir, 'damaged.db')
    const bytes = readFileSync(join(DataFolder.current().backupsDir, name))
    bytes.fill(0x55, 4096, 8192)
    writeFileSync(damaged, bytes)
    for (const file of ['garbage.db', 'foreign.db', 'damaged.db']) {
      const response = await admin(client.post(`/api/v1/backups/${file}/restore`))
      assert.equal(response.status(), 422, file)
      assert.equal(response.body().error.code, 'BACKUP_UNREADABLE', file)
    }
    assert.deepEqual((await admin(client.get('/api/v1/backups/restore'))).body(), { pending: false })
  })

  test('a copy made by a newer version is 422 BACKUP_SCHEMA_TOO_RECENT', async ({ client, assert }) => {
    const name = await takeBackup(client)
    const newer = join(DataFolder.current().backupsDir, 'newer.db')
    copyFileSync(join(DataFolder.current().backupsDir, name), newer)
    await execute(newer, "INSERT INTO adonis_schema (name, batch, migration_time) VALUES ('database/migrations/9999_future_feature', 99, '2030-01-01')")
    const response = await admin(client.post('/api/v1/backups/newer.db/restore'))
    response.assertStatus(422)
    response.assertBodyContains({ error: { code: 'BACKUP_SCHEMA_TOO_RECENT', details: { unknownMigrations: ['9999_future_feature'] } } })
    assert.deepEqual((await admin(client.get('/api/v1/backups/restore'))).body(), { pending: false })
  })
})

test.group('Restore swap at start', (group) => {
  let dataDir: string
  group.each.setup(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'restore-swap-'))
    mkdirSync(join(dataDir, 'restore'))
    return () => rmSync(dataDir, { recursive: true, force: true })
  })

  async function prepare(contents: string) {
    const copy = join(dataDir, 'restore', 'pending.db')
    writeFileSync(copy, contents)
    const { sha256Of } = await import('#modules/backups/services/restore_files')
    writeFileSync(join(dataDir, 'restore', 'pending.json'), JSON.stringify({ name: 'b.db', sha256: await sha256Of(copy), size: contents.length, preparedAt: 'x' }))
  }

  test('the prepared copy takes the place of gateway.db; the old one and its -wal/-shm are kept aside together', async ({ assert }) => {
    writeFileSync(join(dataDir, 'gateway.db'), 'current database')
    writeFileSync(join(dataDir, 'gateway.db-wal'), 'current wal')
    writeFileSync(join(dataDir, 'gateway.db-shm'), 'current shm')
    await prepare('restored database')
    const outcome = await applyPendingRestore(dataDir, new Date('2026-11-21T10:20:30.000Z'))
    assert.containsSubset(outcome, { applied: true, name: 'b.db' })
    assert.equal(readFileSync(join(dataDir, 'gateway.db'), 'utf8'), 'restored database')
    assert.isFalse(existsSync(join(dataDir, 'gateway.db-wal')), 'no stale -wal beside the restored copy')
    assert.isFalse(existsSync(join(dataDir, 'gateway.db-shm')))
    const previous = join(dataDir, 'gateway.db.pre-restore-20261121-102030')
    assert.equal(readFileSync(previous, 'utf8'), 'current database')
    assert.equal(readFileSync(`${previous}-wal`, 'utf8'), 'current wal')
    assert.equal(readFileSync(`${previous}-shm`, 'utf8'), 'current shm')
    assert.deepEqual(readdirSync(join(dataDir, 'restore')), ['last-outcome.json'])
    assert.isNull(await applyPendingRestore(dataDir), 'applied once')
  })

  test('a copy changed after it was checked is not applied: the gateway keeps its database and says why', async ({ assert }) => {
    writeFileSync(join(dataDir, 'gateway.db'), 'current database')
    await prepare('restored database')
    writeFileSync(join(dataDir, 'restore', 'pending.db'), 'tampered')
    const outcome = await applyPendingRestore(dataDir)
    assert.containsSubset(outcome, { applied: false, reason: 'the prepared copy changed after it was checked' })
    assert.equal(readFileSync(join(dataDir, 'gateway.db'), 'utf8'), 'current database')
    assert.deepEqual(readdirSync(join(dataDir, 'restore')), ['last-outcome.json'])
    assert.containsSubset(JSON.parse(readFileSync(join(dataDir, 'restore', 'last-outcome.json'), 'utf8')), { applied: false })
  })

  test('a missing copy or an unreadable record is not applied either', async ({ assert }) => {
    writeFileSync(join(dataDir, 'gateway.db'), 'current database')
    writeFileSync(join(dataDir, 'restore', 'pending.json'), '{not json')
    assert.containsSubset(await applyPendingRestore(dataDir), { applied: false, reason: 'the restore record is unreadable' })
    await prepare('x')
    rmSync(join(dataDir, 'restore', 'pending.db'))
    assert.containsSubset(await applyPendingRestore(dataDir), { applied: false, reason: 'the prepared copy is missing' })
    assert.equal(readFileSync(join(dataDir, 'gateway.db'), 'utf8'), 'current database')
  })
})
