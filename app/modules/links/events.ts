import { definePublicEvents, type NamesOf } from '#core/events/public_events'

export const linkEvents = definePublicEvents({
  'link.clicked': { family: 'Automation and links', description: 'A short link was opened' },
})

declare module '#core/events/public_events' {
  interface PublicEventNames extends NamesOf<typeof linkEvents> {}
}
