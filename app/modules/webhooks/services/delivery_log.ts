import { inject } from '@adonisjs/core'
import { ApiError } from '#core/http/api_error'
import type WebhookDelivery from '#modules/webhooks/models/webhook_delivery'
import { DeliveryRecorder } from '#modules/webhooks/services/delivery_recorder'
import { DeliveryStore, type DeliveryFilters } from '#modules/webhooks/stores/delivery_store'
import { WebhookStore } from '#modules/webhooks/stores/webhook_store'

export type { DeliveryFilters }

/** The delivery log: reading it, and replaying a delivery (docs/webhooks.md, The delivery log). */
@inject()
export class DeliveryLog {
  constructor(
    private recorder: DeliveryRecorder,
    private deliveries: DeliveryStore,
    private webhooks: WebhookStore
  ) {}

  /** Newest first, in pages; filters webhookId, status, event. */
  async list(filters: DeliveryFilters) {
    const page = await this.deliveries.page(filters)
    const names = await this.#webhookNames(page.data)
    return { data: page.data.map((row) => row.toResource(row.webhookId ? (names.get(row.webhookId) ?? null) : null)), nextCursor: page.nextCursor }
  }

  async find(id: number) {
    const delivery = await this.deliveries.find(id)
    if (!delivery) throw ApiError.notFound('Delivery')
    const names = await this.#webhookNames([delivery])
    return delivery.toResource(delivery.webhookId ? (names.get(delivery.webhookId) ?? null) : null)
  }

  /**
   * A new delivery with the same body, a new X-Delivery-Id and (at its attempt) a new signature.
   * Refused for a rule's call and on a paused or switched-off webhook.
   */
  async replay(id: number) {
    const original = await this.deliveries.find(id)
    if (!original) throw ApiError.notFound('Delivery')
    if (original.webhookId === null) throw new ApiError('NOT_REPLAYABLE', "A rule's call cannot be replayed")
    const webhook = await this.webhooks.find(original.webhookId)
    if (!webhook || !webhook.active) {
      throw new ApiError('WEBHOOK_INACTIVE', 'The webhook is paused or switched off: turn it back on to replay', {
        webhookId: String(original.webhookId),
      })
    }
    const [created] = await this.recorder.recordReturning([{ webhookId: webhook.id, event: original.event, body: original.body }])
    return this.find(created)
  }

  #webhookNames(rows: WebhookDelivery[]): Promise<Map<number, string>> {
    return this.webhooks.namesOf([...new Set(rows.map((row) => row.webhookId).filter((id): id is number => id !== null))])
  }
}
