import { BaseModel, column } from '@adonisjs/lucid/orm'
import type { DateTime } from 'luxon'
import { utcDateTime } from '#core/database/utc_date_time'
import { idColumn, jsonColumn, referenceColumn } from '#core/database/columns'
import type { PlannedAction } from '#modules/automation/services/rule_shapes'

/** One run of a rule (or a built-in keyword) on one inbound SMS: planned, then done. */
export default class RuleRun extends BaseModel {
  static table = 'automation_rule_runs'

  @idColumn()
  declare id: number

  @referenceColumn()
  declare ruleId: number | null

  @column()
  declare ruleName: string

  @column()
  declare kind: 'rule' | 'keyword'

  @referenceColumn()
  declare messageId: number

  @referenceColumn()
  declare conversationId: number

  @column({ serializeAs: null })
  declare phone: string

  @column()
  declare deviceId: string | null

  @column()
  declare simSlot: number | null

  @column()
  declare status: 'pending' | 'done'

  @jsonColumn()
  declare actions: PlannedAction[]

  @column({ serializeAs: null })
  declare replies: number

  @utcDateTime()
  declare createdAt: DateTime

  @utcDateTime()
  declare finishedAt: DateTime | null
}
