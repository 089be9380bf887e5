import { defineActivity } from '#core/activity/activity_vocabulary'

/** What the webhooks module writes to the Activity log: webhooks changed, and switched off after failures. */
export const webhookActivity = defineActivity({
  sources: { webhooks: 'Webhooks' },
  kinds: { webhook: 'Webhooks', 'webhook.disabled': 'Webhooks switched off' },
})
