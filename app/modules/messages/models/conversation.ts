import { BaseModel, column } from '@adonisjs/lucid/orm'
import type { DateTime } from 'luxon'
import { utcDateTime } from '#core/database/utc_date_time'
import { booleanColumn, idColumn, referenceColumn } from '#core/database/columns'
import type { MessageCategory } from '#modules/messages/models/message'

/**
 * `open`: the last word was ours (or nothing came back yet); `awaiting_reply`: the last message
 * came in and nobody answered it.
 */
export const conversationStates = ['open', 'awaiting_reply'] as const
export type ConversationState = (typeof conversationStates)[number]

/** All messages with one number, either way. Carries no message text. */
export default class Conversation extends BaseModel {
  static table = 'conversations'

  @idColumn()
  declare id: number

  @column()
  declare phone: string

  @referenceColumn()
  declare contactId: number | null

  @column()
  declare state: ConversationState

  @column()
  declare unreadCount: number

  @booleanColumn()
  declare pinned: boolean

  @booleanColumn()
  declare archived: boolean

  @referenceColumn()
  declare assignedTo: number | null

  @column()
  declare category: MessageCategory

  @utcDateTime()
  declare createdAt: DateTime

  @utcDateTime()
  declare lastMessageAt: DateTime
}
