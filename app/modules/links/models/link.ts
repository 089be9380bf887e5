import { BaseModel, column, computed } from '@adonisjs/lucid/orm'
import type { DateTime } from 'luxon'
import { publicBaseUrl } from '#core/http/public_url'
import { toIso, utcDateTime } from '#core/database/utc_date_time'
import { idColumn } from '#core/database/columns'
import type { LinkResource } from '#modules/links/schemas'

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

  @computed()
  get shortUrl(): string {
    return shortUrlOf(this.code)
  }
}

export function shortUrlOf(code: string): string {
  return `${publicBaseUrl() ?? ''}/l/${code}`
}

/** The Link resource of a row (schemas.ts), in the order its serialisation had. */
export function linkResource(link: Link): LinkResource {
  return { id: String(link.id), code: link.code, url: link.url, clicks: link.clicks, createdAt: toIso(link.createdAt), shortUrl: link.shortUrl }
}
