import { BaseModel, column } from '@adonisjs/lucid/orm'
import type { DateTime } from 'luxon'
import { utcDateTime } from '#core/database/utc_date_time'
import { idColumn } from '#core/database/columns'

/** A short click-counting link of the gateway: `{GATEWAY_PUBLIC_URL}/l/{code}` → url. */
export default class Link extends BaseModel {
  static table = 'links'

  @idColumn()
  declare id: number

  @column()
  declare code: string

  @column()
  declare url: string

  @column()
  declare clicks: number

  @utcDateTime()
  declare createdAt: DateTime
}
