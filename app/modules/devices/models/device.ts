import { BaseModel, column, hasMany } from '@adonisjs/lucid/orm'
import type { HasMany } from '@adonisjs/lucid/types/relations'
import type { DateTime } from 'luxon'
import { toIso, utcDateTime } from '#core/database/utc_date_time'
import { booleanColumn, idColumn, jsonColumn } from '#core/database/columns'
import DeviceSim from '#modules/devices/models/device_sim'
import type { DeviceResource } from '#modules/devices/schemas'

export interface TextOptions {
  stripDiacritics?: boolean | null
  trimWhitespace?: boolean | null
  uppercase?: boolean | null
}

/** A paired phone. */
export default class Device extends BaseModel {
  static table = 'devices'

  @idColumn()
  declare id: number

  @column()
  declare name: string

  @column()
  declare model: string | null

  /** The kind of phone it was paired as (`agent`, or a channel module's, e.g. `smsgate`). */
  @column({ serializeAs: null })
  declare kind: string

  @column()
  declare appVersion: string | null

  @column({ serializeAs: null })
  declare credentialSealed: string

  @booleanColumn()
  declare enabled: boolean

  @column()
  declare status: 'online' | 'offline'

  @utcDateTime()
  declare lastSeenAt: DateTime | null

  @column({ serializeAs: null })
  declare batteryLevel: number | null

  @column({
    serializeAs: null,
    consume: (value: number | null) => (value === null || value === undefined ? null : Boolean(value)),
    prepare: (value: boolean | null) => (value === null || value === undefined ? null : value ? 1 : 0),
  })
  declare batteryCharging: boolean | null

  @column()
  declare signal: number | null

  @jsonColumn()
  declare textOptions: TextOptions

  @utcDateTime()
  declare createdAt: DateTime

  @utcDateTime({ serializeAs: null })
  declare updatedAt: DateTime

  @hasMany(() => DeviceSim, { foreignKey: 'deviceId' })
  declare sims: HasMany<typeof DeviceSim>

  /** The resource as the API shows it (battery grouped, SIMs in slot order); the SIMs must be loaded. */
  toResource(): DeviceResource {
    return {
      id: String(this.id),
      kind: this.kind,
      name: this.name,
      model: this.model,
      appVersion: this.appVersion,
      enabled: this.enabled,
      status: this.status,
      lastSeenAt: this.lastSeenAt ? toIso(this.lastSeenAt) : null,
      battery: this.batteryLevel === null ? null : { level: this.batteryLevel, charging: this.batteryCharging ?? false },
      signal: this.signal,
      sims: [...(this.sims ?? [])]
        .sort((a, b) => a.slot - b.slot)
        .map((sim) => ({
          // Slot 0 or 1: the only ones pairing accepts.
          slot: sim.slot as 0 | 1,
          label: sim.label,
          operator: sim.operator,
          number: sim.number,
          dailyQuota: sim.dailyQuota,
          sentToday: sim.sentToday,
        })),
      textOptions: this.textOptions,
      createdAt: toIso(this.createdAt),
    }
  }
}
