import { test } from '@japa/runner'
import MessageTemplate from '#modules/campaigns/models/message_template'
import { templateResource } from '#modules/campaigns/services/template_library'

test.group('Template resource', () => {
  test('answers the serialised template, then its variables, encoding, segments and characters, in that order', ({ assert }) => {
    const model = MessageTemplate.$createFromAdapterResult({
      id: 6,
      name: 'Reminder',
      body: 'Hello {{firstName|there}}, see you at {{time}}',
      created_at: '2026-11-25T08:00:00.123Z',
      updated_at: '2026-11-25T09:00:00.000Z',
    })!
    const answered = templateResource(model)
    const { variables, encoding, segments, characters } = answered
    assert.equal(JSON.stringify(answered), JSON.stringify({ ...model.serialize(), variables, encoding, segments, characters }))
    assert.deepEqual(variables, [
      { key: 'firstName', fallback: 'there' },
      { key: 'time', fallback: null },
    ])
    assert.equal(encoding, 'gsm7')
  })
})
