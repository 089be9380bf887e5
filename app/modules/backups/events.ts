import { definePublicEvents, type NamesOf } from '#core/events/public_events'

export const backupEvents = definePublicEvents({
  'backup.completed': { family: 'Backups', description: 'A backup was written' },
  'backup.failed': { family: 'Backups', description: 'A backup attempt produced nothing usable' },
})

declare module '#core/events/public_events' {
  interface PublicEventNames extends NamesOf<typeof backupEvents> {}
}
