import { BaseModel, column } from '@adonisjs/lucid/orm'
import type { DateTime } from 'luxon'
import { toIso, utcDateTime } from '#core/database/utc_date_time'
import type { ConversationResource } from '#modules/conversations/schemas'
import { booleanColumn, idColumn, referenceColumn } from '#core/database/columns'
import type { ConversationState, MessageCategory } from '#modules/conversations/conversation_values'

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

  /** The Conversation resource (schemas.ts): what `serialize()` gave, typed. */
  toResource(): ConversationResource {
    return {
      id: String(this.id),
      phone: this.phone,
      contactId: this.contactId === null ? null : String(this.contactId),
      state: this.state,
      unreadCount: this.unreadCount,
      pinned: this.pinned,
      archived: this.archived,
      assignedTo: this.assignedTo === null ? null : String(this.assignedTo),
      category: this.category,
      createdAt: toIso(this.createdAt),
      lastMessageAt: toIso(this.lastMessageAt),
    }
  }
}
