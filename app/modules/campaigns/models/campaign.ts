import { BaseModel, column } from '@adonisjs/lucid/orm'
import type { DateTime } from 'luxon'
import { utcDateTime } from '#core/database/utc_date_time'
import { booleanColumn, idColumn, jsonColumn, referenceColumn } from '#core/database/columns'
import type { campaignStatuses } from '#modules/campaigns/validators/campaign_validators'

export type CampaignStatus = (typeof campaignStatuses)[number]

/** Who a campaign sends to: groups, single contacts, contacts of CSV imports, and bare numbers. */
export interface CampaignAudience {
  groupIds: string[]
  contactIds: string[]
  numbers: string[]
  importIds: string[]
}

/** A bulk send: its text, audience and pace; its recipients are rows of campaign_recipients. */
export default class Campaign extends BaseModel {
  static table = 'campaigns'

  @idColumn()
  declare id: number

  @column()
  declare name: string

  @column()
  declare status: CampaignStatus

  @column()
  declare body: string | null

  @referenceColumn()
  declare templateId: number | null

  @jsonColumn()
  declare audience: CampaignAudience

  @column()
  declare deviceId: string | null

  @column()
  declare simSlot: number | null

  @utcDateTime()
  declare startAt: DateTime | null

  @column()
  declare throttlePerMinute: number | null

  @column()
  declare run: number

  @booleanColumn()
  declare resolved: boolean

  @column()
  declare total: number

  @column()
  declare excludedOptedOut: number

  @column()
  declare excludedDuplicates: number

  @column()
  declare excludedInvalid: number

  @column()
  declare throttleCredit: number

  @column()
  declare lastPassAt: string | null

  @booleanColumn()
  declare windowHeld: boolean

  @utcDateTime()
  declare resumesAt: DateTime | null

  @booleanColumn()
  declare settled: boolean

  @utcDateTime()
  declare createdAt: DateTime

  @utcDateTime()
  declare updatedAt: DateTime

  @utcDateTime()
  declare launchedAt: DateTime | null

  @utcDateTime()
  declare completedAt: DateTime | null

  @utcDateTime()
  declare cancelledAt: DateTime | null
}
