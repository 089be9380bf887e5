import { BaseModel, column } from '@adonisjs/lucid/orm'

/** One SIM of a paired phone, with its daily quota and what it sent today. */
export default class DeviceSim extends BaseModel {
  static table = 'device_sims'

  /** Rows are keyed by (device, slot) and written with the query builder, never saved one by one. */
  @column({ isPrimary: true, serializeAs: null })
  declare deviceId: number

  @column()
  declare slot: number

  @column()
  declare label: string | null

  @column()
  declare operator: string | null

  @column()
  declare number: string | null

  /** null: no quota. */
  @column()
  declare dailyQuota: number | null

  @column()
  declare sentToday: number

  @column({ serializeAs: null })
  declare sentDay: string | null
}
