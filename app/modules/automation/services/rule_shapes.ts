import type { Infer } from '@vinejs/vine/types'
import type { ruleActions, ruleConditions } from '#modules/automation/validators/rule_validators'

/** What a rule may ask of an SMS (all must hold), as its validator lets it in. */
export type RuleCondition = Infer<typeof ruleConditions>[number]

/** What a rule does, in order, as its validator lets it in. */
export type RuleAction = Infer<typeof ruleActions>[number]

/** A built-in keyword's confirmation goes to the number that has just opted out. */
export type KeywordReply = { type: 'reply'; text: string; evenIfOptedOut: true }

/** How an action of a run ended. */
export interface ActionOutcome {
  status: 'done' | 'skipped' | 'failed'
  /** Plain words, never the SMS text or a full number. */
  detail: string
  messageId?: string
}

/** An action as a run planned it, with its outcome once run. */
export type PlannedAction = (RuleAction | KeywordReply) & { outcome?: ActionOutcome }
