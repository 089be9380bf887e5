import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { transaction } from '#core/database/transaction'

/**
 * A COMMIT that SQLite refuses must fail the transaction. A deferred foreign key makes SQLite
 * refuse the COMMIT itself, every time, as a full disk does when the WAL cannot grow.
 */
async function writeOrphanAtCommit(trx: TransactionClientContract, name: string) {
  await trx.rawQuery('PRAGMA defer_foreign_keys = ON')
  await trx.table('scheduled_jobs').insert({ name, due_at: null })
  // A conversation that does not exist: refused only when the transaction commits.
  await trx.rawQuery(
    `INSERT INTO messages (conversation_id, direction, category, phone, body, encoding, segments, status, created_at, updated_at)
     VALUES (-1, 'out', 'transactional', '+33600000000', 'x', 'GSM7', 1, 'queued', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`
  )
  return 'answered as written'
}

test.group('Transactions', () => {
  test('Lucid alone resolves a transaction whose COMMIT SQLite refused (why core has its own)', async ({ assert }) => {
    const name = `refused-commit-lucid-${Date.now()}`
    const answer = await db.transaction((trx) => writeOrphanAtCommit(trx, name)).catch((error) => error)
    // The defect this guards against: an answer for rows that are not there.
    assert.equal(answer, 'answered as written')
    await db.rawQuery('ROLLBACK').catch(() => {})
    assert.lengthOf(await db.from('scheduled_jobs').where('name', name), 0)
  })

  test('a refused COMMIT throws, nothing is written, and the connection is left with no transaction open', async ({ assert }) => {
    const name = `refused-commit-${Date.now()}`
    await assert.rejects(() => transaction((trx) => writeOrphanAtCommit(trx, name)), /FOREIGN KEY/)
    assert.lengthOf(await db.from('scheduled_jobs').where('name', name), 0)

    // The next transaction begins and commits: nothing of the refused one swallows it.
    const next = `after-refused-commit-${Date.now()}`
    await transaction((trx) => trx.table('scheduled_jobs').insert({ name: next, due_at: null }))
    assert.lengthOf(await db.from('scheduled_jobs').where('name', next), 1)
    await db.from('scheduled_jobs').where('name', next).delete()
  })

  test('commits what the work wrote and answers its result', async ({ assert }) => {
    const name = `committed-${Date.now()}`
    const answer = await transaction(async (trx) => {
      await trx.table('scheduled_jobs').insert({ name, due_at: null })
      return 42
    })
    assert.equal(answer, 42)
    assert.lengthOf(await db.from('scheduled_jobs').where('name', name), 1)
    await db.from('scheduled_jobs').where('name', name).delete()
  })

  test('rolls back and rethrows when the work throws', async ({ assert }) => {
    const name = `rolled-back-${Date.now()}`
    await assert.rejects(
      () =>
        transaction(async (trx) => {
          await trx.table('scheduled_jobs').insert({ name, due_at: null })
          throw new Error('refused by the work')
        }),
      'refused by the work'
    )
    assert.lengthOf(await db.from('scheduled_jobs').where('name', name), 0)
  })
})
