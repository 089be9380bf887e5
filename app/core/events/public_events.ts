/**
 * The public event catalogue (spec, Events). Modules emit these on the AdonisJS emitter; the
 * webhooks module subscribes to them. The spec's row printed as `{base_url}` is
 * `device.online` (ARCHITECTURE.md, Spec notes).
 */
export const publicEvents = {
  'message.received': { family: 'Messages', description: 'An SMS was received by a phone' },
  'message.sent': { family: 'Messages', description: 'A phone confirmed sending' },
  'message.delivered': { family: 'Messages', description: 'Carrier confirmed delivery' },
  'message.failed': { family: 'Messages', description: 'A message was given up after its last attempt' },
  'message.deleted': { family: 'Messages', description: 'An operator deleted a message' },
  'device.online': { family: 'Phones', description: 'A silent phone answers again' },
  'device.offline': { family: 'Phones', description: 'A phone lost its connection or sent nothing for 5 minutes' },
  'device.low_battery': { family: 'Phones', description: 'Battery went to 15 % or below (once per crossing)' },
  'campaign.completed': { family: 'Campaigns', description: 'Every recipient reached a final state' },
  'rule.triggered': { family: 'Automation and links', description: 'An automation rule matched an incoming SMS and ran its actions' },
  'link.clicked': { family: 'Automation and links', description: 'A short link was opened' },
  'license.offline': { family: 'Licence', description: 'The gateway cannot reach the license server' },
  'license.reconnected': { family: 'Licence', description: 'The license server answers again' },
  'backup.completed': { family: 'Backups', description: 'A backup was written' },
  'backup.failed': { family: 'Backups', description: 'A backup attempt produced nothing usable' },
} as const

export type PublicEventName = keyof typeof publicEvents
export const publicEventNames = Object.keys(publicEvents) as PublicEventName[]

/**
 * What an event carries (spec, Webhook call body). Never SMS text, a full phone number or a
 * contact name: a receiver reads the item through the API.
 */
export interface PublicEvent {
  /** Identifier of the item concerned. */
  id: string
  /** When the fact happened (from the clock). */
  at: Date
  conversationId?: string
  deviceId?: string
  status?: string
}

export function isPublicEventName(name: string): name is PublicEventName {
  return Object.hasOwn(publicEvents, name)
}

declare module '@adonisjs/core/types' {
  interface EventsList extends Record<PublicEventName, PublicEvent> {}
}
