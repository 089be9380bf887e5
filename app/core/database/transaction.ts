import db from '@adonisjs/lucid/services/db'
import type { QueryClientContract, TransactionClientContract } from '@adonisjs/lucid/types/database'

/** What a transaction can be opened on: the database service or one of its connections. */
type TransactionOpener = Pick<QueryClientContract, 'transaction'>

/**
 * Runs `work` in one SQLite transaction and resolves only once SQLite has committed it.
 *
 * Use this, never `transaction(callback)`: when SQLite refuses the COMMIT (a full disk,
 * an I/O error), knex reports the failure only on the transaction's own promise and Lucid's
 * `commit()` resolves anyway, so the caller believed rows were written that SQLite had rolled
 * back (a send answered 202 whose messages were never stored). Here a refused COMMIT throws.
 * `tests/unit/core/transactions_checked.spec.ts` keeps every other way out of the code.
 */
export async function transaction<T>(work: (trx: TransactionClientContract) => Promise<T>, database: TransactionOpener = db): Promise<T> {
  const trx = await database.transaction()
  let result: T
  try {
    result = await work(trx)
  } catch (error) {
    if (!trx.isCompleted) await trx.rollback()
    throw error
  }
  if (!trx.isCompleted) await committed(trx, database)
  return result
}

async function committed(trx: TransactionClientContract, database: TransactionOpener): Promise<void> {
  await trx.commit()
  try {
    // Settles once knex has run COMMIT: rejected with SQLite's error when it was refused.
    await (trx.knexClient as unknown as { executionPromise: Promise<unknown> }).executionPromise
  } catch (error) {
    await leaveNoTransactionOpen(database)
    throw error
  }
}

/**
 * After a refused COMMIT, SQLite has rolled the transaction back by itself on a full disk or an
 * I/O error, but keeps it open on some other refusals (a deferred constraint); knex has already
 * given the connection back, so a transaction left open would swallow every later statement.
 * A ROLLBACK when none is open fails harmlessly.
 */
async function leaveNoTransactionOpen(database: TransactionOpener): Promise<void> {
  const client = database as unknown as Pick<QueryClientContract, 'rawQuery'>
  if (typeof client.rawQuery !== 'function') return
  await client.rawQuery('ROLLBACK').catch(() => {})
}
