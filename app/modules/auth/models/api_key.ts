import { BaseModel, column } from '@adonisjs/lucid/orm'
import type { DateTime } from 'luxon'
import type { Scope } from '#core/http/access'
import { isoOrNull, toIso, utcDateTime } from '#core/database/utc_date_time'
import type { ApiKeyResource } from '#modules/auth/schemas'

/**
 * An integration's API key. Only the SHA-256 fingerprint of the secret and its last four
 * characters are kept; the secret is shown once, at creation or rotation.
 */
export default class ApiKey extends BaseModel {
  static table = 'api_keys'

  @column({ isPrimary: true, serialize: (value: number) => String(value) })
  declare id: number

  @column()
  declare name: string

  /** The name lower-cased, for uniqueness ignoring case. */
  @column({ serializeAs: null })
  declare nameKey: string

  @column()
  declare scope: Scope

  @column({ serializeAs: null })
  declare fingerprint: string

  @column()
  declare lastFour: string

  @column({
    prepare: (value: string[]) => JSON.stringify(value ?? []),
    consume: (value: string) => (value ? JSON.parse(value) : []),
  })
  declare allowedIps: string[]

  @column()
  declare callsPerMinute: number | null

  @column()
  declare callsPerDay: number | null

  @utcDateTime()
  declare createdAt: DateTime

  @utcDateTime()
  declare updatedAt: DateTime

  @utcDateTime()
  declare lastUsedAt: DateTime | null

  /** The ApiKey resource (schemas.ts): what `serialize()` gave, typed; never the fingerprint. */
  toResource(): ApiKeyResource {
    return {
      id: String(this.id),
      name: this.name,
      scope: this.scope,
      lastFour: this.lastFour,
      allowedIps: this.allowedIps,
      callsPerMinute: this.callsPerMinute,
      callsPerDay: this.callsPerDay,
      createdAt: toIso(this.createdAt),
      updatedAt: toIso(this.updatedAt),
      lastUsedAt: isoOrNull(this.lastUsedAt),
    }
  }
}
