import { defineActivity } from '#core/activity/activity_vocabulary'

/**
 * One entry per bulk action, with counts. The source and kinds keep the names the messages
 * module wrote them under before this module was cut from it, so the entries of older versions
 * still show under the same filter and labels.
 */
export const messageBulkActivity = defineActivity({
  sources: { messages: 'Messages' },
  kinds: { 'messages.deleted': 'Messages deleted together', 'messages.retried': 'Messages retried together' },
})
