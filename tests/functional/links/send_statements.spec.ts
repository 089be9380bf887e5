import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { DateTime } from 'luxon'
import { SendQueue, type PreparedSend } from '#modules/sending/services/send_queue'
import { clearMessaging } from '#tests/helpers/messages'
import { onStatement } from '#tests/helpers/sql_trace'

const traced = new WeakSet<object>()
let onTrace: ((sql: string) => void) | null = null

/**
 * The statements SQLite ran in the one transaction `work` opens (BEGIN to COMMIT, both
 * included), as SQLite itself reports them: what the shortener adds to a send's transaction.
 */
async function transactionOf(work: () => Promise<unknown>): Promise<string[]> {
  const knex = db.connection().getWriteClient()
  const connection: any = await knex.client.acquireConnection()
  await knex.client.releaseConnection(connection)
  // Listened to once per connection: node-sqlite3 does not turn its trace on again once off.
  if (!traced.has(connection)) {
    traced.add(connection)
    // Lines starting with `--` are trigger programs running inside the statement before them.
    onStatement(connection, (sql: string) => {
      if (!sql.startsWith('--')) onTrace?.(sql.replace(/\s+/g, ' ').slice(0, 40))
    })
  }
  const statements: string[] = []
  let state = 'before' as 'before' | 'inside' | 'done'
  onTrace = (sql) => {
    if (state === 'before' && /^BEGIN/i.test(sql)) state = 'inside'
    if (state === 'inside') statements.push(sql)
    if (state === 'inside' && /^COMMIT/i.test(sql)) state = 'done'
  }
  try {
    await work()
    while (state !== 'done') await new Promise((resolve) => setImmediate(resolve))
  } finally {
    onTrace = null
  }
  return statements
}

function prepared(body: string, shortenLinks: boolean): PreparedSend {
  return {
    numbers: ['+33612345678', '+447911123456'],
    body,
    shortenLinks,
    category: 'transactional',
    scheduledAt: null,
    deviceId: null,
    simSlot: null,
    createdAt: DateTime.utc(),
    claim: null,
  }
}

test.group('Short links in the send transaction', (group) => {
  group.each.setup(() => clearMessaging())

  test("a send with shortenLinks adds one INSERT per distinct address to the send's own transaction, and nothing else", async ({ assert }) => {
    const queue = await app.container.make(SendQueue)
    const plain = await transactionOf(() => queue.submit(prepared('See https://a.example and https://b.example', false)))
    const text = 'See https://a.example, https://b.example and https://a.example again'
    const shortened = await transactionOf(() => queue.submit(prepared(text, true)))

    // BEGIN, the conversation upsert, the messages' INSERT, COMMIT.
    assert.lengthOf(plain, 4, plain.join('\n'))
    const linkInserts = shortened.filter((sql) => /^insert into .?links/i.test(sql))
    assert.lengthOf(linkInserts, 2, shortened.join('\n'))
    assert.deepEqual(
      shortened.filter((sql) => !linkInserts.includes(sql)),
      plain,
      'the rest of the transaction is the plain send'
    )
    assert.equal(Number((await db.from('links').count('* as total').first()).total), 2)
  })
})
