import { test } from '@japa/runner'
import { publicEventCatalogue, isPublicEventName } from '#core/events/public_events'

test.group('Public event catalogue', () => {
  test('the modules register the 15 events of docs/webhooks.md (Events)', ({ assert }) => {
    const publicEventNames = publicEventCatalogue.names()
    assert.sameMembers(publicEventNames, [
      'message.received',
      'message.sent',
      'message.delivered',
      'message.failed',
      'message.deleted',
      'device.online',
      'device.offline',
      'device.low_battery',
      'campaign.completed',
      'rule.triggered',
      'link.clicked',
      'license.offline',
      'license.reconnected',
      'backup.completed',
      'backup.failed',
    ])
    assert.isFalse(isPublicEventName('{base_url}'))
    assert.isFalse(isPublicEventName('toString'))
  })
})
