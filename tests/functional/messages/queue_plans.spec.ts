import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { dueStatement, unacceptedStatement } from '#modules/messages/stores/message_state_store'

/** SQLite's plan of a statement, one line per step, on the migrated test database. */
async function planOf(sql: string, bindings: readonly unknown[]): Promise<string[]> {
  const rows = await db.rawQuery(`EXPLAIN QUERY PLAN ${sql}`, [...bindings])
  return rows.map((row: { detail: string }) => row.detail)
}

/** The steps of a plan that read the `messages` table. */
const readsOfMessages = (plan: string[]) => plan.filter((step) => /\bmessages\b/.test(step))

/**
 * The dispatcher's reads of the queue walk the queued messages only (`messages_due`, the index
 * of the queued outbound messages), never the table: on a gateway that has carried many messages,
 * the time from a send to its order would otherwise grow with every message ever stored
 * (docs/sending.md, How a message leaves).
 */
test.group('The dispatcher reads the queue, not the table', () => {
  test('the due messages and when the next one is due: both parts from messages_due ({$self})')
    .with(['every due message', 'forced messages only'])
    .run(async ({ assert }, which) => {
      const { sql, bindings } = dueStatement(new Date('2026-06-01T10:00:00.000Z'), { limit: 1000, forcedOnly: which === 'forced messages only' })
      const reads = readsOfMessages(await planOf(sql, bindings))
      assert.lengthOf(reads, 2, reads.join(' | '))
      for (const read of reads) assert.match(read, /^(SCAN|SEARCH) messages USING INDEX messages_due\b/)
    })

  test("a phone's orders not accepted yet (read when it reconnects, or has been away): from messages_due, not the phone's history", async ({
    assert,
  }) => {
    const waiting = unacceptedStatement(7, ['id', 'phone', 'body', 'sim_slot', 'ordered_at'])
    const upTo = unacceptedStatement(7, ['id', 'sim_slot', 'ordered_at'], new Date('2026-06-01T10:00:00.000Z'))
    for (const { sql, bindings } of [waiting, upTo]) {
      const reads = readsOfMessages(await planOf(sql, bindings))
      assert.lengthOf(reads, 1, reads.join(' | '))
      assert.match(reads[0], /^(SCAN|SEARCH) messages USING INDEX messages_due\b/)
    }
  })
})
