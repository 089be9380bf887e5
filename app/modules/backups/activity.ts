import { defineActivity } from '#core/activity/activity_vocabulary'

/** What the backups module writes to the Activity log: a failed backup, a restore applied or not. */
export const backupActivity = defineActivity({
  sources: { backups: 'Backups' },
  kinds: { backup: 'Backups', restore: 'Restores' },
})
