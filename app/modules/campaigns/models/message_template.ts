import { BaseModel, column } from '@adonisjs/lucid/orm'
import type { DateTime } from 'luxon'
import { utcDateTime } from '#core/database/utc_date_time'
import { idColumn } from '#core/database/columns'

/** A reusable text with {{variables}} filled in per recipient. */
export default class MessageTemplate extends BaseModel {
  static table = 'message_templates'

  @idColumn()
  declare id: number

  @column()
  declare name: string

  @column()
  declare body: string

  @utcDateTime()
  declare createdAt: DateTime

  @utcDateTime()
  declare updatedAt: DateTime
}
