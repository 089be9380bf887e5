import { defineActivity } from '#core/activity/activity_vocabulary'

/** What the messages module writes to the Activity log: many messages deleted or retried at once (one entry, with counts). */
export const messageActivity = defineActivity({
  sources: { messages: 'Messages' },
  kinds: { 'messages.deleted': 'Messages deleted together', 'messages.retried': 'Messages retried together' },
})
