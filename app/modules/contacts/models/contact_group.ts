import { BaseModel, column } from '@adonisjs/lucid/orm'
import type { DateTime } from 'luxon'
import { toIso, utcDateTime } from '#core/database/utc_date_time'
import { idColumn } from '#core/database/columns'
import type { GroupResource } from '#modules/contacts/schemas'

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

  /** The Group resource (schemas.ts): the row with its member count. */
  toResource(memberCount: number): GroupResource {
    return {
      id: String(this.id),
      name: this.name,
      description: this.description,
      createdAt: toIso(this.createdAt),
      updatedAt: toIso(this.updatedAt),
      memberCount,
    }
  }
}
