import { definePublicEvents, type NamesOf } from '#core/events/public_events'

/** Also the event a rule's URL call is logged under (docs/automation.md, URL call). */
export const automationEvents = definePublicEvents({
  'rule.triggered': { family: 'Automation and links', description: 'An automation rule matched an incoming SMS and ran its actions' },
})

declare module '#core/events/public_events' {
  interface PublicEventNames extends NamesOf<typeof automationEvents> {}
}
