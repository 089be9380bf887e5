import { BaseModel, column } from '@adonisjs/lucid/orm'
import type { DateTime } from 'luxon'
import { isoOrNull, toIso, utcDateTime } from '#core/database/utc_date_time'
import { idColumn, referenceColumn } from '#core/database/columns'
import { idText, type MessageResource } from '#modules/messages/schemas'
import type { MessageCategory, MessageDirection, MessageStatus } from '#modules/messages/message_values'

/** One SMS to or from one number: the API's Message resource. */
export default class Message extends BaseModel {
  static table = 'messages'

  @idColumn()
  declare id: number

  @referenceColumn()
  declare conversationId: number

  @column()
  declare direction: MessageDirection

  @column()
  declare category: MessageCategory

  @column()
  declare phone: string

  @column()
  declare body: string

  @column()
  declare encoding: 'gsm7' | 'ucs2'

  @column()
  declare segments: number

  /** The campaign that queued it (null for API and dashboard sends). */
  @referenceColumn()
  declare campaignId: number | null

  @column()
  declare status: MessageStatus

  @column()
  declare attempts: number

  @column()
  declare errorCode: string | null

  /** sim_cadence or sim_rate while held back without spending an attempt. */
  @column()
  declare holdReason: 'sim_cadence' | 'sim_rate' | null

  @utcDateTime()
  declare heldUntil: DateTime | null

  @column()
  declare deviceId: string | null

  @column()
  declare simSlot: number | null

  @utcDateTime()
  declare scheduledAt: DateTime | null

  @utcDateTime()
  declare createdAt: DateTime

  @utcDateTime({ serializeAs: null })
  declare updatedAt: DateTime

  /** When it was handed to a phone: the order waits for that phone to accept it (null: in the queue). */
  @utcDateTime()
  declare orderedAt: DateTime | null

  @utcDateTime()
  declare sentAt: DateTime | null

  @utcDateTime()
  declare deliveredAt: DateTime | null

  @utcDateTime()
  declare failedAt: DateTime | null

  /** The Message resource (schemas.ts) of a message read as a model: what `serialize()` gave, typed. */
  toResource(): MessageResource {
    return {
      id: String(this.id),
      conversationId: String(this.conversationId),
      direction: this.direction,
      category: this.category,
      phone: this.phone,
      body: this.body,
      encoding: this.encoding,
      segments: this.segments,
      campaignId: idText(this.campaignId),
      status: this.status,
      attempts: this.attempts,
      errorCode: this.errorCode,
      holdReason: this.holdReason,
      heldUntil: isoOrNull(this.heldUntil),
      deviceId: this.deviceId,
      // Slot 0 or 1: the only ones a send, a campaign or a phone's report can name.
      simSlot: this.simSlot as 0 | 1 | null,
      scheduledAt: isoOrNull(this.scheduledAt),
      createdAt: toIso(this.createdAt),
      orderedAt: isoOrNull(this.orderedAt),
      sentAt: isoOrNull(this.sentAt),
      deliveredAt: isoOrNull(this.deliveredAt),
      failedAt: isoOrNull(this.failedAt),
    }
  }
}
