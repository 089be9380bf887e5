import { BaseModel, column } from '@adonisjs/lucid/orm'
import type { DateTime } from 'luxon'
import { isoOrNull, toIso, utcDateTime } from '#core/database/utc_date_time'
import { idColumn, referenceColumn } from '#core/database/columns'
import type { MessageResource } from '#modules/messages/schemas'
import { messageCategories, type MessageCategory } from '#modules/conversations/public'

/** A message's `category` (docs/sending.md, The request), kept by its conversation too, which declares it. */
export { messageCategories, type MessageCategory }

/** Every status a message can have (docs/live-channels.md, `messages`, lists them). */
export const messageStatuses = [
  'queued',
  'dispatched',
  'sent',
  'delivered',
  'failed',
  'pending_quota_exceeded',
  'paused',
  'cancelled',
] as const
export type MessageStatus = (typeof messageStatuses)[number]

export type MessageDirection = 'out' | 'in'

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

/** A messages row as SQLite holds it (snake_case columns; dates as the gateway's ISO UTC text). */
export interface MessageRow {
  id: number
  conversation_id: number
  direction: MessageDirection
  category: MessageCategory
  phone: string
  body: string
  encoding: 'gsm7' | 'ucs2'
  segments: number
  campaign_id: number | null
  status: MessageStatus
  attempts: number
  error_code: string | null
  hold_reason: 'sim_cadence' | 'sim_rate' | null
  held_until: string | null
  device_id: string | null
  sim_slot: number | null
  scheduled_at: string | null
  created_at: string
  ordered_at: string | null
  sent_at: string | null
  delivered_at: string | null
  failed_at: string | null
}

const idText = <T extends number | null>(value: T) => (value === null ? null : String(value)) as T extends number ? string : null

/**
 * The Message resource straight from a row the gateway has just written: what `serialize()` of
 * the model answers (a test holds them equal), without building a model per message, which was a
 * measurable share of a send's 202 (stored dates are already the ISO text the API shows).
 */
export function messageResource(row: MessageRow): MessageResource {
  return {
    id: String(row.id),
    conversationId: idText(row.conversation_id),
    direction: row.direction,
    category: row.category,
    phone: row.phone,
    body: row.body,
    encoding: row.encoding,
    segments: row.segments,
    campaignId: idText(row.campaign_id),
    status: row.status,
    attempts: row.attempts,
    errorCode: row.error_code,
    holdReason: row.hold_reason,
    heldUntil: row.held_until,
    deviceId: row.device_id,
    // Slot 0 or 1: the only ones a send, a campaign or a phone's report can name.
    simSlot: row.sim_slot as 0 | 1 | null,
    scheduledAt: row.scheduled_at,
    createdAt: row.created_at,
    orderedAt: row.ordered_at,
    sentAt: row.sent_at,
    deliveredAt: row.delivered_at,
    failedAt: row.failed_at,
  }
}
