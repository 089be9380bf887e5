import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { DateTime } from 'luxon'
import AutomationRule from '#modules/automation/models/automation_rule'
import type { RuleAction, RuleCondition } from '#modules/automation/services/rule_shapes'

/** A rule's own columns, as the API sets them. */
export interface StoredRuleFields {
  name: string
  enabled: boolean
  stopAfter: boolean
  conditions: RuleCondition[]
  actions: RuleAction[]
}

/**
 * The `automation_rules` table (docs/modules.md, Data access): the AutomationRule model for a
 * rule's reads and writes, the query builder for the two statements that touch several rows (the
 * count with the last position, a new order).
 */
export class RuleStore {
  /** Every rule, in the order they run. */
  async inOrder(): Promise<AutomationRule[]> {
    return AutomationRule.query().orderBy('position', 'asc').orderBy('id', 'asc')
  }

  /** The enabled rules, in the order they run. */
  async enabledInOrder(): Promise<AutomationRule[]> {
    return AutomationRule.query().where('enabled', true).orderBy('position', 'asc').orderBy('id', 'asc')
  }

  async find(id: number): Promise<AutomationRule | null> {
    return AutomationRule.find(id)
  }

  /** Whether a rule has this name, whatever its case. */
  async nameTaken(name: string): Promise<boolean> {
    return Boolean(await AutomationRule.query().whereRaw('name = ? COLLATE NOCASE', [name]).first())
  }

  /** How many rules there are, and the last one's position (0 with none). */
  async countAndLastPosition(): Promise<{ count: number; lastPosition: number }> {
    const [{ count, last }] = await db.from('automation_rules').select(db.raw('COUNT(*) AS count'), db.raw('MAX(position) AS last'))
    return { count: Number(count), lastPosition: last ?? 0 }
  }

  async add(fields: StoredRuleFields & { position: number; callSecretSealed: string | null; at: DateTime }): Promise<AutomationRule> {
    return AutomationRule.create({
      name: fields.name,
      enabled: fields.enabled,
      stopAfter: fields.stopAfter,
      conditions: fields.conditions,
      actions: fields.actions,
      position: fields.position,
      callSecretSealed: fields.callSecretSealed,
      createdAt: fields.at,
      updatedAt: fields.at,
    })
  }

  /** The fields given (a sealed secret of null: the rule has none any more); `updatedAt` always. */
  async change(rule: AutomationRule, fields: Partial<StoredRuleFields> & { callSecretSealed?: string | null; updatedAt: DateTime }): Promise<void> {
    rule.merge(fields)
    await rule.save()
  }

  async remove(rule: AutomationRule): Promise<void> {
    await rule.delete()
  }

  /** Positions 1, 2, … in the order of `ids`, in the caller's transaction: one statement a rule. */
  async setOrder(trx: TransactionClientContract, ids: number[]): Promise<void> {
    for (const [index, id] of ids.entries()) await trx.from('automation_rules').where('id', id).update({ position: index + 1 })
  }
}
