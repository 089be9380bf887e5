import { inject } from '@adonisjs/core'
import { ApiError } from '#core/http/api_error'
import { toIso } from '#core/database/utc_date_time'
import { keysetPage, type PageRequest } from '#core/pagination/keyset_page'
import Webhook from '#modules/webhooks/models/webhook'
import WebhookDelivery from '#modules/webhooks/models/webhook_delivery'
import { DeliveryRecorder } from '#modules/webhooks/services/delivery_recorder'

export interface DeliveryFilters extends PageRequest {
  webhookId?: string
  status?: 'pending' | 'success' | 'failed'
  event?: string
}

/** The delivery log: reading it, and replaying a delivery (docs/webhooks.md, The delivery log). */
@inject()
export class DeliveryLog {
  constructor(private recorder: DeliveryRecorder) {}

  /** Newest first, in pages; filters webhookId, status, event. */
  async list(filters: DeliveryFilters) {
    const query = WebhookDelivery.query()
    if (filters.webhookId) query.where('webhook_id', Number(filters.webhookId))
    if (filters.status) query.where('status', filters.status)
    if (filters.event) query.where('event', filters.event)
    const page = await keysetPage(query, filters, 'created_at', (row) => toIso(row.createdAt))
    const names = await this.#webhookNames(page.data)
    return { data: page.data.map((row) => row.toResource(row.webhookId ? (names.get(row.webhookId) ?? null) : null)), nextCursor: page.nextCursor }
  }

  async find(id: number) {
    const delivery = await WebhookDelivery.find(id)
    if (!delivery) throw ApiError.notFound('Delivery')
    const names = await this.#webhookNames([delivery])
    return delivery.toResource(delivery.webhookId ? (names.get(delivery.webhookId) ?? null) : null)
  }

  /**
   * A new delivery with the same body, a new X-Delivery-Id and (at its attempt) a new signature.
   * Refused for a rule's call and on a paused or switched-off webhook.
   */
  async replay(id: number) {
    const original = await WebhookDelivery.find(id)
    if (!original) throw ApiError.notFound('Delivery')
    if (original.webhookId === null) throw new ApiError('NOT_REPLAYABLE', "A rule's call cannot be replayed")
    const webhook = await Webhook.find(original.webhookId)
    if (!webhook || !webhook.active) {
      throw new ApiError('WEBHOOK_INACTIVE', 'The webhook is paused or switched off: turn it back on to replay', {
        webhookId: String(original.webhookId),
      })
    }
    const [created] = await this.recorder.recordReturning([{ webhookId: webhook.id, event: original.event, body: original.body }])
    return this.find(created)
  }

  async #webhookNames(rows: WebhookDelivery[]): Promise<Map<number, string>> {
    const ids = [...new Set(rows.map((row) => row.webhookId).filter((id): id is number => id !== null))]
    if (!ids.length) return new Map()
    const webhooks = await Webhook.query().whereIn('id', ids).select('id', 'name')
    return new Map(webhooks.map((webhook) => [webhook.id, webhook.name]))
  }
}
