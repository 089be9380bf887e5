import { definePublicEvents, type NamesOf } from '#core/events/public_events'

/** The phones' public events (docs/webhooks.md lists them under Phones); they carry identifiers only. */
export const deviceEvents = definePublicEvents({
  'device.online': { family: 'Phones', description: 'A silent phone answers again' },
  'device.offline': { family: 'Phones', description: 'A phone lost its connection or sent nothing for 5 minutes' },
  'device.low_battery': { family: 'Phones', description: 'Battery went to 15 % or below (once per crossing)' },
})

declare module '#core/events/public_events' {
  interface PublicEventNames extends NamesOf<typeof deviceEvents> {}
}
