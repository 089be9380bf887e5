import { test } from '@japa/runner'
import sqlite3 from 'sqlite3'
import { DataFolder } from '#core/data_folder/data_folder'
import { testKeys, useTestKeys } from '#tests/helpers/callers'

/** Another program holding the database's write lock, as an operator's `sqlite3` shell can. */
async function holdWriteLock(): Promise<{ release(): Promise<void> }> {
  const other = await new Promise<sqlite3.Database>((resolve, reject) => {
    const database = new sqlite3.Database(DataFolder.current().databaseFile, (error) => (error ? reject(error) : resolve(database)))
  })
  await new Promise<void>((resolve, reject) => other.exec('BEGIN IMMEDIATE', (error) => (error ? reject(error) : resolve())))
  return {
    release: () => new Promise<void>((resolve) => other.exec('ROLLBACK', () => other.close(() => resolve()))),
  }
}

test.group('Another program holding the database', (group) => {
  group.each.setup(() => useTestKeys())

  test('a send waits for the lock, then answers 503 DATABASE_BUSY with Retry-After, never 500; /health says so; sends go through once it is let go', async ({ client, assert }) => {
    const lock = await holdWriteLock()
    let released = false
    try {
      const refused = await client.post('/api/v1/messages').header('X-API-KEY', testKeys.send).json({ to: ['+33612345678'], body: 'behind a lock' })
      refused.assertStatus(503)
      assert.equal(refused.body().error.code, 'DATABASE_BUSY')
      assert.equal(refused.header('retry-after'), '5')
      // Reads go on beside the other program's lock.
      ;(await client.get('/api/v1/messages?limit=1').header('X-API-KEY', testKeys.read)).assertStatus(200)
      const health = await client.get('/health')
      assert.deepEqual(health.body(), { status: 'degraded', storage: 'ok', database: 'locked' })
      await lock.release()
      released = true

      const accepted = await client.post('/api/v1/messages').header('X-API-KEY', testKeys.send).json({ to: ['+33612345678'], body: 'after the lock' })
      accepted.assertStatus(202)
      assert.deepEqual((await client.get('/health')).body(), { status: 'ok', storage: 'ok', database: 'ok' })
    } finally {
      if (!released) await lock.release()
    }
  }).timeout(30_000)

  test('a send that arrives while the lock is held goes through once it is let go within the wait', async ({ client, assert }) => {
    const lock = await holdWriteLock()
    const answer = client.post('/api/v1/messages').header('X-API-KEY', testKeys.send).json({ to: ['+33612345679'], body: 'waits for the lock' })
    setTimeout(() => void lock.release(), 1500)
    const done = await answer
    done.assertStatus(202)
    assert.lengthOf(done.body().accepted, 1)
  }).timeout(30_000)
})
