import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { DateTime } from 'luxon'
import { SendQueue, type PreparedSend } from '#modules/sending/services/send_queue'
import { clearMessaging } from '#tests/helpers/messages'
import { transactionOf } from '#tests/helpers/sql_trace'

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
