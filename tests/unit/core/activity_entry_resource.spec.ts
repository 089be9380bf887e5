import { test } from '@japa/runner'
import ActivityEntry from '#core/activity/activity_entry'

const entry = {
  id: 8,
  level: 'warning',
  source: 'webhooks',
  kind: 'webhook.disabled',
  actor: 'account:2',
  actor_name: 'Ana',
  message: 'Webhook "CRM" disabled',
  details: '{"webhookId":"3"}',
  created_at: '2026-11-25T08:00:00.123Z',
}

test.group('Activity entry resource', () => {
  test('toResource answers what the model serialises, in the same order, with or without actor and details', ({ assert }) => {
    for (const row of [entry, { ...entry, actor: null, actor_name: null, details: null }]) {
      const model = ActivityEntry.$createFromAdapterResult(row)!
      assert.equal(JSON.stringify(model.toResource()), JSON.stringify(model.serialize()))
    }
  })
})
