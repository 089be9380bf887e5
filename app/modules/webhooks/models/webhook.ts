import { BaseModel, column } from '@adonisjs/lucid/orm'
import type { DateTime } from 'luxon'
import { toIso, utcDateTime } from '#core/database/utc_date_time'
import { booleanColumn, idColumn, jsonColumn } from '#core/database/columns'
import type { PublicEventName } from '#core/events/public_events'
import type { WebhookResource } from '#modules/webhooks/schemas'

export type WebhookMethod = 'POST' | 'PUT' | 'PATCH'

export interface CustomHeader {
  name: string
  value: string
}

/** A webhook subscription (docs/webhooks.md, Subscribing). */
export default class Webhook extends BaseModel {
  static table = 'webhooks'

  @idColumn()
  declare id: number

  @column()
  declare name: string

  @column({ serializeAs: null })
  declare nameKey: string

  @column()
  declare url: string

  @column()
  declare method: WebhookMethod

  @jsonColumn()
  declare events: PublicEventName[]

  @jsonColumn()
  declare headers: CustomHeader[]

  @column({ serializeAs: null })
  declare secretSealed: string

  @booleanColumn()
  declare active: boolean

  @column()
  declare consecutiveFailures: number

  @utcDateTime()
  declare disabledAt: DateTime | null

  @utcDateTime()
  declare createdAt: DateTime

  @utcDateTime()
  declare updatedAt: DateTime

  /** The resource as the API shows it; disabledAt is present only when the gateway switched it off. */
  toResource(): WebhookResource {
    return {
      id: String(this.id),
      name: this.name,
      url: this.url,
      method: this.method,
      events: this.events,
      headers: this.headers,
      active: this.active,
      consecutiveFailures: this.consecutiveFailures,
      createdAt: toIso(this.createdAt),
      updatedAt: toIso(this.updatedAt),
      ...(this.disabledAt ? { disabledAt: toIso(this.disabledAt) } : {}),
    }
  }
}
