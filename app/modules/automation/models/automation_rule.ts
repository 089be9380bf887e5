import { BaseModel, column } from '@adonisjs/lucid/orm'
import type { DateTime } from 'luxon'
import { utcDateTime } from '#core/database/utc_date_time'
import { booleanColumn, idColumn, jsonColumn } from '#core/database/columns'
import type { RuleAction, RuleCondition } from '#modules/automation/services/rule_shapes'

/** A rule on incoming SMS: conditions that must all hold, actions run in order. */
export default class AutomationRule extends BaseModel {
  static table = 'automation_rules'

  @idColumn()
  declare id: number

  @column()
  declare name: string

  @booleanColumn()
  declare enabled: boolean

  /** Rules run by ascending position. */
  @column()
  declare position: number

  @booleanColumn()
  declare stopAfter: boolean

  @jsonColumn()
  declare conditions: RuleCondition[]

  @jsonColumn()
  declare actions: RuleAction[]

  @column({ serializeAs: null })
  declare callSecretSealed: string | null

  @utcDateTime()
  declare createdAt: DateTime

  @utcDateTime()
  declare updatedAt: DateTime
}
