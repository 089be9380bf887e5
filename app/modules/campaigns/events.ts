import { definePublicEvents, type NamesOf } from '#core/events/public_events'

export const campaignEvents = definePublicEvents({
  'campaign.completed': { family: 'Campaigns', description: 'Every recipient reached a final state' },
})

declare module '#core/events/public_events' {
  interface PublicEventNames extends NamesOf<typeof campaignEvents> {}
}
