import { defineActivity } from '#core/activity/activity_vocabulary'

/** What the license writes to the Activity log: its changes of state and the keys entered. */
export const licenseActivity = defineActivity({
  sources: { license: 'License' },
  kinds: { license: 'License' },
})
