import type { PublicEventName } from '#core/events/public_events'
import type { WebhookStore } from '#modules/webhooks/stores/webhook_store'

export interface ActiveSubscription {
  webhookId: number
  events: ReadonlySet<string>
}

/**
 * Which active webhooks listen to which event, kept in memory: every public event asks, and most
 * events have no subscriber. Reloaded whenever a webhook changes (the webhook service and the
 * switch-off call `invalidate`), so a change of events applies to the events that follow it.
 */
export class WebhookSubscriptions {
  #loading: Promise<ActiveSubscription[]> | null = null

  constructor(private webhooks: WebhookStore) {}

  async activeFor(event: PublicEventName): Promise<number[]> {
    const all = await (this.#loading ??= this.#load())
    const ids: number[] = []
    for (const subscription of all) if (subscription.events.has(event)) ids.push(subscription.webhookId)
    return ids
  }

  invalidate(): void {
    this.#loading = null
  }

  async #load(): Promise<ActiveSubscription[]> {
    try {
      const rows = await this.webhooks.activeSubscriptions()
      return rows.map((row) => ({ webhookId: row.id, events: new Set(JSON.parse(row.events) as string[]) }))
    } catch (error) {
      this.#loading = null
      throw error
    }
  }
}
