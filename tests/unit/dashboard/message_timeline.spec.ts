import { test } from '@japa/runner'
import { messageTimeline } from '../../../dashboard/src/pages/messages/message_timeline.js'

const now = new Date('2026-03-10T12:00:00Z')

test.group('A message timeline', () => {
  test('queued, handed to a phone, sent and delivered, oldest first', ({ assert }) => {
    const steps = messageTimeline(
      {
        direction: 'out',
        status: 'delivered',
        attempts: 1,
        createdAt: '2026-03-10T11:00:00.000Z',
        orderedAt: '2026-03-10T11:00:01.000Z',
        sentAt: '2026-03-10T11:00:03.000Z',
        deliveredAt: '2026-03-10T11:00:09.000Z',
      },
      now
    )
    assert.deepEqual(
      steps.map((step) => step.title),
      ['Queued', 'Handed to a phone', 'Sent', 'Delivered']
    )
    assert.isTrue(steps.every((step) => !step.upcoming))
  })

  test('a retry still to come is upcoming; a received SMS is one step', ({ assert }) => {
    const retrying = messageTimeline(
      { direction: 'out', status: 'queued', attempts: 1, errorCode: 'RADIO_OFF', createdAt: '2026-03-10T11:00:00.000Z', heldUntil: '2026-03-10T12:10:00.000Z' },
      now
    )
    assert.deepEqual(retrying.at(-1), { at: '2026-03-10T12:10:00.000Z', title: 'Retry 1 (after RADIO_OFF)', upcoming: true, tone: 'info' })
    assert.deepEqual(
      messageTimeline({ direction: 'in', status: 'delivered', attempts: 0, createdAt: '2026-03-10T11:00:00.000Z' }, now).map((step) => step.title),
      ['Received']
    )
  })
})
