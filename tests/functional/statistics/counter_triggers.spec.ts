import { test } from '@japa/runner'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { MigrationRunner } from '@adonisjs/lucid/migration'
import { LEGACY_MIGRATIONS } from '#core/database/migration_folders'
import CounterTriggers from '#modules/statistics/migrations/0024_statistics_counter_triggers'

const SCRATCH = 'counter_triggers_scratch'
const COUNTERS = ['message_volume', 'message_failures', 'message_latency']

interface SchemaRow {
  type: string
  name: string
  tbl_name: string
  sql: string | null
  position: number
}

async function schemaOf(connection: string): Promise<SchemaRow[]> {
  return db.connection(connection).rawQuery('SELECT type, name, tbl_name, sql, rowid AS position FROM sqlite_master ORDER BY name')
}
const triggersOnMessages = (rows: SchemaRow[]) => rows.filter((row) => row.type === 'trigger' && row.tbl_name === 'messages')
// The messages module keeps its own search index with triggers of its own (docs/sending.md, Search).
const isSearchTrigger = (row: SchemaRow) => row.name.startsWith('messages_search_')
const counterTriggers = (rows: SchemaRow[]) => triggersOnMessages(rows).filter((row) => !isSearchTrigger(row))
const writtenBy = (trigger: SchemaRow) => [...trigger.sql!.matchAll(/\b(?:INSERT INTO|UPDATE|DELETE FROM)\s+(\w+)\s*(?:\(|SET\b|WHERE\b|;)/g)].map((match) => match[1])
const withoutPosition = (rows: SchemaRow[]) => rows.map(({ position: _position, ...row }) => row)

test.group('Statistics counters: the triggers the statistics module owns', (group) => {
  let folder: string
  group.each.setup(async () => {
    folder = mkdtempSync(join(tmpdir(), 'counter-triggers-'))
    // A database as the versions before this migration left it: database/migrations only.
    db.manager.add(SCRATCH, {
      client: 'sqlite3',
      connection: { filename: join(folder, 'gateway.db') },
      useNullAsDefault: true,
      migrations: { naturalSort: true, paths: [LEGACY_MIGRATIONS] },
    })
    return async () => {
      await db.manager.close(SCRATCH, true)
      rmSync(folder, { recursive: true, force: true })
    }
  })

  test('its migration recreates the triggers of database/migrations with the same SQL, character for character', async ({ assert }) => {
    const runner = new MigrationRunner(db, app, { direction: 'up', connectionName: SCRATCH })
    await runner.run()
    if (runner.error) throw runner.error
    const before = await schemaOf(SCRATCH)
    assert.sameMembers(
      counterTriggers(before).map((row) => row.name),
      ['message_volume_on_insert', 'message_volume_on_delete', 'message_volume_on_status', 'message_volume_on_move']
        .concat(['message_failures_on_insert', 'message_failures_on_delete', 'message_failures_on_update'])
        .concat(['message_latency_on_insert', 'message_latency_on_delete', 'message_latency_on_update'])
    )

    await new CounterTriggers(db.connection(SCRATCH), 'statistics_counter_triggers').execUp()
    const after = await schemaOf(SCRATCH)

    // Dropped and created again (each is now written after every other object of the schema)...
    const lastBefore = Math.max(...before.map((row) => row.position))
    for (const trigger of counterTriggers(after)) assert.isAbove(trigger.position, lastBefore, trigger.name)
    // ...as they were, and nothing else changed.
    assert.deepEqual(withoutPosition(after), withoutPosition(before))
  }).timeout(30_000)

  test('the running gateway has the same triggers, on messages, writing only the counters', async ({ assert }) => {
    const runner = new MigrationRunner(db, app, { direction: 'up', connectionName: SCRATCH })
    await runner.run()
    if (runner.error) throw runner.error
    const legacy = counterTriggers(await schemaOf(SCRATCH))
    const live = counterTriggers(await schemaOf(db.primaryConnectionName))
    assert.deepEqual(withoutPosition(live), withoutPosition(legacy))
    for (const trigger of live) {
      const written = writtenBy(trigger)
      assert.isNotEmpty(written, trigger.name)
      for (const table of written) assert.include(COUNTERS, table, trigger.name)
    }
    // Every other trigger on messages is the search index's, and writes only that index.
    const search = triggersOnMessages(await schemaOf(db.primaryConnectionName)).filter(isSearchTrigger)
    assert.lengthOf(search, 3)
    for (const trigger of search) {
      const written = writtenBy(trigger)
      assert.isNotEmpty(written, trigger.name)
      for (const table of written) assert.equal(table, 'messages_search', trigger.name)
    }
  }).timeout(30_000)
})
