import { BaseModel, column } from '@adonisjs/lucid/orm'
import type { DateTime } from 'luxon'
import { utcDateTime } from '#core/database/utc_date_time'
import { idColumn, referenceColumn } from '#core/database/columns'

/** Spec, Send request `category`: a purpose label only; never changes routing, delay or price. */
export const messageCategories = ['transactional', 'conversation', 'info', 'campaign'] as const
export type MessageCategory = (typeof messageCategories)[number]

/** Spec, Message status. */
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

/** One SMS to or from one number (spec, Message resource). */
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
}
