import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { DataFolder } from '#core/data_folder/data_folder'

test.group('Database connection', () => {
  test('is the data folder gateway.db in WAL mode, with foreign keys on and a busy timeout', async ({ assert }) => {
    const [{ file }] = (await db.rawQuery("SELECT file FROM pragma_database_list WHERE name = 'main'")) as Array<{ file: string }>
    assert.equal(file, DataFolder.current().databaseFile)
    const [{ journal_mode: journalMode }] = await db.rawQuery('PRAGMA journal_mode')
    assert.equal(journalMode, 'wal')
    const [{ foreign_keys: foreignKeys }] = await db.rawQuery('PRAGMA foreign_keys')
    assert.equal(foreignKeys, 1)
    const [{ timeout }] = await db.rawQuery('PRAGMA busy_timeout')
    assert.equal(timeout, 5000)
  })

  test('foreign keys are enforced, not just declared', async ({ assert }) => {
    await db.rawQuery('CREATE TEMP TABLE parent_probe (id INTEGER PRIMARY KEY)')
    await db.rawQuery('CREATE TEMP TABLE child_probe (parent_id INTEGER REFERENCES parent_probe(id))')
    try {
      await assert.rejects(() => db.rawQuery('INSERT INTO child_probe (parent_id) VALUES (42)'), /FOREIGN KEY/)
    } finally {
      await db.rawQuery('DROP TABLE child_probe')
      await db.rawQuery('DROP TABLE parent_probe')
    }
  })
})
