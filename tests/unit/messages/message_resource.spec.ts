import { test } from '@japa/runner'
import Message from '#modules/messages/models/message'
import { messageStatuses } from '#modules/messages/message_values'
import { messageResource, type MessageRow } from '#modules/messages/schemas'

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
  test('answers exactly what the model serialises, every column set or empty', ({ assert }) => {
    for (const row of [full, empty, ...messageStatuses.map((status) => ({ ...full, status }))]) {
      const viaModel = Message.$createFromAdapterResult({ ...row, updated_at: row.created_at, forced_device_id: null, forced_sim_slot: null })!.serialize()
      assert.deepEqual(messageResource(row), viaModel)
    }
  })

  test('a model read answers through toResource what it serialises, in the same order', ({ assert }) => {
    for (const row of [full, empty, ...messageStatuses.map((status) => ({ ...full, status }))]) {
      const model = Message.$createFromAdapterResult({ ...row, updated_at: row.created_at, forced_device_id: null, forced_sim_slot: null })!
      assert.equal(JSON.stringify(model.toResource()), JSON.stringify(model.serialize()))
    }
  })

  test('names every column of the model but updatedAt', ({ assert }) => {
    const served = [...Message.$columnsDefinitions.values()].filter((column) => column.serializeAs !== null).map((column) => column.serializeAs)
    assert.sameMembers(Object.keys(messageResource(full)), served)
  })
})
