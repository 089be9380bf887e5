import { test } from '@japa/runner'
import Conversation from '#modules/conversations/models/conversation'

const full = {
  id: 12,
  phone: '+33612345678',
  contact_id: 4,
  state: 'awaiting_reply',
  unread_count: 3,
  pinned: 1,
  archived: 0,
  assigned_to: 2,
  category: 'conversation',
  created_at: '2026-11-25T08:00:00.123Z',
  last_message_at: '2026-11-25T09:00:00.000Z',
}
const empty = { ...full, contact_id: null, assigned_to: null, state: 'open', unread_count: 0, pinned: 0, archived: 1 }

test.group('Conversation resource', () => {
  test('toResource answers what the model serialises, in the same order, every column set or empty', ({ assert }) => {
    for (const row of [full, empty]) {
      const model = Conversation.$createFromAdapterResult(row)!
      assert.equal(JSON.stringify(model.toResource()), JSON.stringify(model.serialize()))
    }
  })

  test('names every column of the model', ({ assert }) => {
    const served = [...Conversation.$columnsDefinitions.values()].filter((column) => column.serializeAs !== null).map((column) => column.serializeAs)
    assert.sameOrderedMembers(Object.keys(Conversation.$createFromAdapterResult(full)!.toResource()), served)
  })
})
