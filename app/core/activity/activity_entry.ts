import { BaseModel, column } from '@adonisjs/lucid/orm'
import type { DateTime } from 'luxon'
import { toIso, utcDateTime } from '#core/database/utc_date_time'
import type { ActivityEntryResource } from '#core/schemas'

export const activityLevels = ['info', 'warning', 'error'] as const
export type ActivityLevel = (typeof activityLevels)[number]

/** One line of the Activity log: what happened, for the operator, in plain words. */
export default class ActivityEntry extends BaseModel {
  static table = 'activity_entries'

  @column({ isPrimary: true, serialize: (value: number) => String(value) })
  declare id: number

  @column()
  declare level: ActivityLevel

  /** The module that wrote it (backups, webhooks, devices...). */
  @column()
  declare source: string

  /** `<thing>.<what happened>`: apikey.created, device.paired, webhook.disabled, settings.changed... */
  @column()
  declare kind: string

  /** Who did it: `account:3`, `api_key:5`; null: the gateway itself (a job, a phone, start-up). */
  @column()
  declare actor: string | null

  /** Their name when they did it (an account or key renamed later keeps its old name here). */
  @column()
  declare actorName: string | null

  @column()
  declare message: string

  @column({
    prepare: (value: Record<string, unknown> | null) => (value ? JSON.stringify(value) : null),
    consume: (value: string | null) => (value ? JSON.parse(value) : null),
  })
  declare details: Record<string, unknown> | null

  @utcDateTime()
  declare createdAt: DateTime

  /** The ActivityEntry resource (core/schemas.ts): what `serialize()` gave, typed. */
  toResource(): ActivityEntryResource {
    return {
      id: String(this.id),
      level: this.level,
      source: this.source,
      kind: this.kind,
      actor: this.actor,
      actorName: this.actorName,
      message: this.message,
      details: this.details,
      createdAt: toIso(this.createdAt),
    }
  }
}
