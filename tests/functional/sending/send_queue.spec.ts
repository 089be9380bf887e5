import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import { DateTime } from 'luxon'
import { SendQueue, type PreparedSend } from '#modules/sending/services/send_queue'
import { clearMessaging, messageCount } from '#tests/helpers/messages'

function prepared(numbers: string[], overrides: Partial<PreparedSend> = {}): PreparedSend {
  return {
    numbers,
    body: 'batched',
    shortenLinks: false,
    category: 'transactional',
    scheduledAt: null,
    deviceId: null,
    simSlot: null,
    createdAt: DateTime.utc(),
    claim: null,
    ...overrides,
  }
}

test.group('Send queue (group commit)', (group) => {
  group.each.setup(() => clearMessaging())

  test('sends that arrive together are written together, each answered with its own messages', async ({ assert }) => {
    const queue = await app.container.make(SendQueue)
    const answers = await Promise.all([prepared(['+33612345678']), prepared(['+33612345679', '+33612345670'])].map((send) => queue.submit(send)))
    assert.deepEqual(
      answers.map((answer: any) => answer.body.accepted.map((message: any) => message.phone)),
      [['+33612345678'], ['+33612345679', '+33612345670']]
    )
    assert.equal(await messageCount(), 3)
  })

  test('a send that fails in the database fails alone: the others of its batch are written', async ({ assert }) => {
    const queue = await app.container.make(SendQueue)
    // A NULL category breaks the NOT NULL constraint of messages: a real SQLite failure.
    const broken = prepared(['+447911123456'], { category: null as any })
    const results = await Promise.allSettled([prepared(['+33612345678']), broken, prepared(['+33612345679'])].map((send) => queue.submit(send)))
    assert.deepEqual(results.map((result) => result.status), ['fulfilled', 'rejected', 'fulfilled'])
    assert.equal(await messageCount(), 2)
  })
})
