import { defineActivity } from '#core/activity/activity_vocabulary'

/** What the campaigns module writes to the Activity log: a campaign started, paused, resumed, cancelled, completed. */
export const campaignActivity = defineActivity({
  sources: { campaigns: 'Campaigns' },
  kinds: { campaign: 'Campaigns' },
})
