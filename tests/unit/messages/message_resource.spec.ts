import { test } from '@japa/runner'
import { messageStatuses } from '#modules/messages/message_values'
import { messageResource, messageSchema, storedColumn, type MessageRow } from '#modules/messages/schemas'

/** A row with every column set, and one with every nullable column empty. */
const full: MessageRow = {
  id: 41,
  conversation_id: 7,
  direction: 'out',
  category: 'campaign',
  phone: '+33612345678',
  body: 'Hello',
  encoding: 'ucs2',
  segments: 2,
  campaign_id: 3,
  status: 'failed',
  attempts: 2,
  error_code: 'DEVICE_REPORTED_FAILURE',
  hold_reason: 'sim_rate',
  held_until: '2026-11-25T10:00:00.000Z',
  device_id: '5',
  sim_slot: 1,
  scheduled_at: '2026-11-25T09:00:00.000Z',
  created_at: '2026-11-25T08:00:00.123Z',
  ordered_at: '2026-11-25T09:00:01.000Z',
  sent_at: '2026-11-25T09:00:02.000Z',
  delivered_at: '2026-11-25T09:00:03.000Z',
  failed_at: '2026-11-25T09:00:04.000Z',
}
const empty: MessageRow = {
  ...full,
  status: 'queued',
  campaign_id: null,
  error_code: null,
  hold_reason: null,
  held_until: null,
  device_id: null,
  sim_slot: null,
  scheduled_at: null,
  ordered_at: null,
  sent_at: null,
  delivered_at: null,
  failed_at: null,
}

test.group('Message resource from a row', () => {
  test('answers every field of the schema, every column set or empty', ({ assert }) => {
    for (const row of [full, empty, ...messageStatuses.map((status) => ({ ...full, status }))]) {
      assert.sameMembers(Object.keys(messageResource(row)), Object.keys(messageSchema.properties))
    }
  })

  test('identifiers as text, stored dates as they are, empty columns as null', ({ assert }) => {
    const answered = messageResource(full)
    assert.include(answered, { id: '41', conversationId: '7', campaignId: '3', deviceId: '5', simSlot: 1, createdAt: '2026-11-25T08:00:00.123Z' })
    assert.include(messageResource(empty), { campaignId: null, deviceId: null, simSlot: null, orderedAt: null, failedAt: null, errorCode: null })
  })

  test('every field is read from a column of the row: a resource field is a stored column', ({ assert }) => {
    for (const field of Object.keys(messageSchema.properties)) assert.property(full, storedColumn(field))
  })
})
