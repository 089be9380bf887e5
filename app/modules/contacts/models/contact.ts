import { BaseModel, column } from '@adonisjs/lucid/orm'
import type { DateTime } from 'luxon'
import { toIso, utcDateTime } from '#core/database/utc_date_time'
import { booleanColumn, idColumn, jsonColumn } from '#core/database/columns'
import type { ContactResource } from '#modules/contacts/schemas'

/** A person behind a number. `blacklisted` is the opt-out flag: never sent to. */
export default class Contact extends BaseModel {
  static table = 'contacts'

  @idColumn()
  declare id: number

  @column()
  declare phone: string

  @column()
  declare firstName: string | null

  @column()
  declare lastName: string | null

  @column()
  declare company: string | null

  @column()
  declare email: string | null

  @column()
  declare notes: string | null

  @jsonColumn()
  declare tags: string[]

  /** Custom fields (a CSV's extra columns), by key: template variables such as {{city}}. */
  @jsonColumn()
  declare fields: Record<string, string>

  @booleanColumn()
  declare blacklisted: boolean

  @utcDateTime()
  declare createdAt: DateTime

  @utcDateTime()
  declare updatedAt: DateTime

  /** The Contact resource (schemas.ts): the row with the groups it is in. */
  toResource(groups: ContactResource['groups']): ContactResource {
    return {
      id: String(this.id),
      phone: this.phone,
      firstName: this.firstName,
      lastName: this.lastName,
      company: this.company,
      email: this.email,
      notes: this.notes,
      tags: this.tags,
      fields: this.fields,
      blacklisted: this.blacklisted,
      createdAt: toIso(this.createdAt),
      updatedAt: toIso(this.updatedAt),
      groups,
    }
  }
}
