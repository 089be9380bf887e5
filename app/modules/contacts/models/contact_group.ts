import { BaseModel, column } from '@adonisjs/lucid/orm'
import type { DateTime } from 'luxon'
import { utcDateTime } from '#core/database/utc_date_time'
import { idColumn } from '#core/database/columns'

/** A named set of contacts that campaigns and rules target. Members: contact_group_members. */
export default class ContactGroup extends BaseModel {
  static table = 'contact_groups'

  @idColumn()
  declare id: number

  @column()
  declare name: string

  @column()
  declare description: string | null

  @utcDateTime()
  declare createdAt: DateTime

  @utcDateTime()
  declare updatedAt: DateTime
}
