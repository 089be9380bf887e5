/**
 * The public event catalogue (docs/webhooks.md, Events): the events a webhook may subscribe to.
 * Each module declares the events it emits with `definePublicEvents` and registers them from its
 * provider's `register()`; the webhooks module subscribes to whatever the catalogue holds.
 * Declaration merging makes each name a typed AdonisJS event:
 *
 *   export const messageEvents = definePublicEvents({ 'message.sent': { family: 'Messages', ... } })
 *   declare module '#core/events/public_events' {
 *     interface PublicEventNames extends NamesOf<typeof messageEvents> {}
 *   }
 */
export interface PublicEventNames {}

export type PublicEventName = keyof PublicEventNames & string
export type NamesOf<Table> = { [Name in keyof Table]: true }

export interface PublicEventDefinition {
  /** The dashboard family it is listed under: Messages, Phones, Campaigns... */
  family: string
  description: string
}

/**
 * What an event carries (docs/webhooks.md, A call). Never SMS text, a full phone number or a
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

export function definePublicEvents<Name extends string>(events: Record<Name, PublicEventDefinition>): Record<Name, PublicEventDefinition> {
  return events
}

/**
 * Every public event of the running gateway. A module-level catalogue, like the error kinds:
 * validators and the OpenAPI document read it lazily, once every provider has registered.
 */
class PublicEventCatalogue {
  readonly #events = new Map<string, PublicEventDefinition>()

  add(events: Record<string, PublicEventDefinition>): void {
    for (const [name, definition] of Object.entries(events)) {
      if (this.#events.has(name)) throw new Error(`Public event ${name} is defined twice`)
      this.#events.set(name, definition)
    }
  }

  names(): PublicEventName[] {
    return [...this.#events.keys()] as PublicEventName[]
  }

  /** Each event with its family and description, in the order modules registered them. */
  entries(): Array<{ name: PublicEventName } & PublicEventDefinition> {
    return [...this.#events].map(([name, definition]) => ({ name: name as PublicEventName, ...definition }))
  }

  has(name: string): name is PublicEventName {
    return this.#events.has(name)
  }
}

export const publicEventCatalogue = new PublicEventCatalogue()

export function isPublicEventName(name: string): name is PublicEventName {
  return publicEventCatalogue.has(name)
}

declare module '@adonisjs/core/types' {
  interface EventsList extends Record<PublicEventName, PublicEvent> {}
}
