import { defineActivity } from '#core/activity/activity_vocabulary'

/** What the devices module writes to the Activity log: a phone paired or unpaired. */
export const deviceActivity = defineActivity({
  sources: { devices: 'Phones' },
  kinds: { device: 'Phones paired and unpaired' },
})
