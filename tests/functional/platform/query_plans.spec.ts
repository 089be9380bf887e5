import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { takenOrdersStatement, waitingToStatement } from '#modules/messages/stores/message_state_store'
import { receivedAfterQuery } from '#modules/messages/stores/received_sms_feed'
import { whereMessageFilters, type MessageFilters } from '#modules/messages/stores/message_store'
import { waitingDeliveries } from '#modules/webhooks/stores/delivery_store'
import { ACTORS_STATEMENT } from '#core/activity/activity_log'

/**
 * SQLite's plan of a statement, one line per step, on the migrated test database. The planner
 * has no statistics (no ANALYZE), as on a gateway: the plan depends on the statement and the
 * indexes only, so an empty database shows the plan a large one runs.
 */
async function planOf(sql: string, bindings: readonly unknown[]): Promise<string[]> {
  const rows = await db.rawQuery(`EXPLAIN QUERY PLAN ${sql}`, [...bindings])
  return rows.map((row: { detail: string }) => row.detail)
}

/** The steps of a plan that read `table` (as itself, not another table whose name contains it). */
const readsOf = (table: string, plan: string[]) => plan.filter((step) => new RegExp(`^(SCAN|SEARCH) ${table}\\b`).test(step))

/** The one read of `table` in the statement's plan, which must take `index`. */
async function assertReadsThrough(assert: any, table: string, index: string, sql: string, bindings: readonly unknown[]) {
  const reads = readsOf(table, await planOf(sql, bindings))
  assert.lengthOf(reads, 1, reads.join(' | '))
  assert.match(reads[0], new RegExp(`^(SCAN|SEARCH) ${table} USING (COVERING )?INDEX ${index}( |$)`), reads[0])
}

const at = new Date('2026-06-01T10:00:00.000Z')

/**
 * The statements run rarely but inside a write (a phone unpaired, a number opting out) read the
 * few rows they change, never a history that grows with every message stored.
 */
test.group('Query plans: the writes on a phone or a number', () => {
  test("failing a phone's taken orders reads the dispatched messages, not the phone's history", async ({ assert }) => {
    const { sql, bindings } = takenOrdersStatement(7, 'device_removed', at)
    await assertReadsThrough(assert, 'messages', 'messages_status_created_at_id_index', sql, bindings)
  })

  test("cancelling what waits for numbers reads those numbers' messages, not every outbound one ({$self})")
    .with(['one number', 'many numbers', 'many numbers, phones taking back'])
    .run(async ({ assert }, which) => {
      const numbers = which === 'one number' ? ['+33612345678'] : Array.from({ length: 1000 }, (_, i) => `+336${10000000 + i}`)
      const { sql, bindings } = waitingToStatement(numbers, 'opted_out', at, which.endsWith('phones taking back') ? [3, 4] : [])
      await assertReadsThrough(assert, 'messages', 'messages_phone_created_at_id_index', sql, bindings)
    })
})

test.group('Query plans: the automation rules read the received messages from their cursor on', () => {
  test('the inbound messages after the cursor are read by id from the cursor, not from the index on direction', async ({ assert }) => {
    const { sql, bindings } = receivedAfterQuery(1234, 100).toSQL().toNative()
    const reads = readsOf('messages', await planOf(sql, bindings))
    assert.lengthOf(reads, 1, reads.join(' | '))
    assert.match(reads[0], /^SEARCH messages USING INTEGER PRIMARY KEY \(rowid>\?\)$/)
  })
})

/**
 * The list (and the bulk actions and export, which share its filters): a filter that bounds the
 * rows drives the read, the direction and the category (a few large parts of the table) never
 * do beside it. A page of "outbound and failed" must not walk every outbound message.
 */
test.group('Query plans: the message list is read from its most bounding filter', () => {
  const cases: Array<{ name: string; filters: MessageFilters; index: string }> = [
    { name: 'direction and status', filters: { direction: 'out', status: 'failed' }, index: 'messages_status_created_at_id_index' },
    { name: 'category and status', filters: { category: 'transactional', status: 'paused' }, index: 'messages_status_created_at_id_index' },
    { name: 'direction and conversation', filters: { direction: 'out', conversationId: 5 }, index: 'messages_conversation_id_created_at_id_index' },
    { name: 'direction and number', filters: { direction: 'in', phone: '+33612345678' }, index: 'messages_phone_created_at_id_index' },
    { name: 'direction and phone', filters: { direction: 'out', deviceId: '2' }, index: 'messages_device_created_at_id' },
    { name: 'direction and campaign', filters: { direction: 'out', campaignId: '3' }, index: 'messages_campaign_id_status_index' },
    { name: 'direction alone', filters: { direction: 'in' }, index: 'messages_direction_created_at_id' },
    { name: 'category alone', filters: { category: 'campaign' }, index: 'messages_category_created_at_id' },
  ]
  for (const { name, filters, index } of cases) {
    test(`${name}: ${index}`, async ({ assert }) => {
      const query = whereMessageFilters(db.from('messages').select('*'), filters).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(51)
      const { sql, bindings } = query.toSQL().toNative()
      await assertReadsThrough(assert, 'messages', index, sql, bindings)
    })
  }
})

test.group("Query plans: a webhook's or a rule's waiting deliveries", () => {
  test('dropping or retargeting them reads the pending deliveries, not every delivery made ({$self})')
    .with(['a webhook', 'a webhook, some in flight', 'a rule', 'a rule, some in flight'])
    .run(async ({ assert }, which) => {
      const inFlight = which.includes('in flight') ? [11, 12] : []
      const waiting = waitingDeliveries(which.startsWith('a webhook') ? { webhookId: 1 } : { ruleId: 'rule-1' }, inFlight)
      for (const sql of [
        `UPDATE ${waiting.table} SET status = 'failed' WHERE ${waiting.where} RETURNING id`,
        `SELECT id FROM ${waiting.table} WHERE ${waiting.where}`,
      ]) {
        await assertReadsThrough(assert, 'webhook_deliveries', 'webhook_deliveries_due', sql, waiting.bindings)
      }
    })
})

/**
 * A conversation's contact is a foreign key (ON DELETE SET NULL): deleting a contact, or moving
 * it to another number, finds its conversations through `conversations_contact_id` (migration
 * 0030), not by walking every conversation inside the write.
 */
test.group("Query plans: a contact's conversations", () => {
  test("deleting a contact reaches its conversations through the index on contact_id (the foreign key's action)", async ({ assert }) => {
    const plan = await planOf('DELETE FROM contacts WHERE id = ?', [7])
    const reads = readsOf('conversations', plan)
    assert.lengthOf(reads, 1, plan.join(' | '))
    assert.match(reads[0], /^SEARCH conversations USING (COVERING )?INDEX conversations_contact_id \(contact_id=\?\)$/)
  })

  test("unlinking a contact whose number changed reads its conversations through the same index", async ({ assert }) => {
    const { sql, bindings } = db.from('conversations').where('contact_id', 7).update({ contact_id: null }).toSQL().toNative()
    await assertReadsThrough(assert, 'conversations', 'conversations_contact_id', sql, bindings)
  })
})

/**
 * The Activity log is never purged: the actors for its filter are found by seeks in the index on
 * actor, a few per actor, never by reading every entry.
 */
test.group('Query plans: the Activity log', () => {
  test("the actors are read by seeks in the actor's index, their latest entry by its key", async ({ assert }) => {
    const plan = await planOf(ACTORS_STATEMENT, [])
    const reads = readsOf('activity_entries', plan)
    assert.isAtLeast(reads.length, 2, plan.join(' | '))
    for (const read of reads) assert.match(read, /^SEARCH activity_entries USING COVERING INDEX activity_entries_actor_created_at_id_index \(actor[>=]\?\)$/, plan.join(' | '))
    assert.deepEqual(readsOf('latest', plan), ['SEARCH latest USING INTEGER PRIMARY KEY (rowid=?)'], plan.join(' | '))
  })
})
