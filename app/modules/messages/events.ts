import { definePublicEvents, type NamesOf } from '#core/events/public_events'

export const messageEvents = definePublicEvents({
  'message.received': { family: 'Messages', description: 'An SMS was received by a phone' },
  'message.sent': { family: 'Messages', description: 'A phone confirmed sending' },
  'message.delivered': { family: 'Messages', description: 'Carrier confirmed delivery' },
  'message.failed': { family: 'Messages', description: 'A message was given up after its last attempt' },
  'message.deleted': { family: 'Messages', description: 'An operator deleted a message' },
})

declare module '#core/events/public_events' {
  interface PublicEventNames extends NamesOf<typeof messageEvents> {}
}
