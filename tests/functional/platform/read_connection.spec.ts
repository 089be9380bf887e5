import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { readConnection } from '#core/database/read_connection'

/**
 * The second connection to the database file (the dispatcher's reads): it sees what the writer
 * has committed, refuses to write, and reads beside a write transaction left open instead of
 * waiting for it.
 */
test.group('Read connection', () => {
  test('sees committed writes at once, and refuses to write', async ({ assert }) => {
    const name = `read-connection-${Date.now()}`
    await db.table('scheduled_jobs').insert({ name, due_at: null })
    try {
      const rows = await readConnection().from('scheduled_jobs').where('name', name)
      assert.lengthOf(rows, 1)
      await assert.rejects(() => readConnection().rawQuery('DELETE FROM scheduled_jobs WHERE name = ?', [name]), /readonly|read-only|query_only/i)
      assert.lengthOf(await db.from('scheduled_jobs').where('name', name), 1)
    } finally {
      await db.from('scheduled_jobs').where('name', name).delete()
    }
  })

  test('reads the last committed state while the writer holds a transaction open', async ({ assert }) => {
    const name = `read-connection-open-${Date.now()}`
    const trx = await db.transaction()
    try {
      await trx.table('scheduled_jobs').insert({ name, due_at: null })
      // On the writer's own connection this read would queue behind the open transaction.
      const seen = await readConnection().from('scheduled_jobs').where('name', name)
      assert.lengthOf(seen, 0, 'an uncommitted row is not seen')
    } finally {
      await trx.rollback()
    }
  })
})
