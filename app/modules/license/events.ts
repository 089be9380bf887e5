import { definePublicEvents, type NamesOf } from '#core/events/public_events'

export const licenseEvents = definePublicEvents({
  'license.offline': { family: 'Licence', description: 'The gateway cannot reach the license server' },
  'license.reconnected': { family: 'Licence', description: 'The license server answers again' },
})

declare module '#core/events/public_events' {
  interface PublicEventNames extends NamesOf<typeof licenseEvents> {}
}
