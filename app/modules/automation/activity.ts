import { defineActivity } from '#core/activity/activity_vocabulary'

/** What the automation module writes to the Activity log: rules created, changed, reordered, deleted. */
export const automationActivity = defineActivity({
  sources: { automation: 'Rules' },
  kinds: { rule: 'Rules' },
})
