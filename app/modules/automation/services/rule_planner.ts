import type { ReceivedSms } from '#modules/messages/public'
import type { Settings } from '#core/settings/settings_catalogue'
import type { ReadonlyDeep } from '#core/settings/settings_store'
import type AutomationRule from '#modules/automation/models/automation_rule'
import type { PlannedAction } from '#modules/automation/services/rule_shapes'
import { conditionHolds, type ArrivingSms } from '#modules/automation/services/rule_conditions'
import { asKeyword, folded } from '#modules/automation/services/text_match'

/** A run decided for one SMS, before anything is done. */
export interface PlannedRun {
  kind: 'rule' | 'keyword'
  ruleId: number | null
  ruleName: string
  actions: PlannedAction[]
}

/**
 * The built-in keyword the whole text is, if the keywords are on: an opt-out first, then an
 * opt-in, then help (the first wins if an operator listed a word twice). The run is named as the
 * run log and the test box show it: "Opt-out keyword STOP", "Opt-in keyword START", "Help keyword HELP".
 */
export function keywordRun(text: string, reception: ReadonlyDeep<Settings['reception']>): PlannedRun | null {
  if (!reception.optOutKeywordsEnabled) return null
  const word = asKeyword(text)
  if (!word) return null
  const listed = (keywords: readonly string[]) => keywords.find((keyword) => folded(keyword) === word)
  const optOut = listed(reception.optOutKeywords)
  if (optOut !== undefined) {
    return {
      kind: 'keyword',
      ruleId: null,
      ruleName: `Opt-out keyword ${optOut.toUpperCase()}`,
      // Opted out first (waiting messages withdrawn), then the confirmation, which alone may reach them.
      actions: [{ type: 'opt_out' }, ...(reception.optOutReply ? [{ type: 'reply' as const, text: reception.optOutReply, evenIfOptedOut: true as const }] : [])],
    }
  }
  const optIn = listed(reception.optInKeywords)
  if (optIn !== undefined) {
    return {
      kind: 'keyword',
      ruleId: null,
      ruleName: `Opt-in keyword ${optIn.toUpperCase()}`,
      actions: [{ type: 'opt_in' }, ...(reception.optInReply ? [{ type: 'reply' as const, text: reception.optInReply }] : [])],
    }
  }
  // Without a reply a help keyword has nothing to do: the text is left to the rules like any other.
  const help = listed(reception.helpKeywords)
  if (help !== undefined && reception.helpReply) {
    return {
      kind: 'keyword',
      ruleId: null,
      ruleName: `Help keyword ${help.toUpperCase()}`,
      // Answered even to an opted-out number: they asked for it, and carriers expect HELP answered
      // whatever the opt-out (the reply limit and the own-phones guard still hold).
      actions: [{ type: 'reply', text: reception.helpReply, evenIfOptedOut: true }],
    }
  }
  return null
}

/** The rules whose conditions all hold, in order, up to the first that stops the others. */
export function matchingRules(rules: AutomationRule[], sms: ArrivingSms, timezone: string): AutomationRule[] {
  const matched: AutomationRule[] = []
  for (const rule of rules) {
    if (!rule.conditions.every((condition) => conditionHolds(condition, sms, timezone))) continue
    matched.push(rule)
    if (rule.stopAfter) break
  }
  return matched
}

/** Every run one SMS gets: its keyword's, then the matching rules'. */
export function planRuns(sms: ReceivedSms, senderGroupIds: number[], rules: AutomationRule[], reception: ReadonlyDeep<Settings['reception']>, timezone: string): PlannedRun[] {
  const keyword = keywordRun(sms.body, reception)
  const arriving: ArrivingSms = { text: sms.body, deviceId: sms.deviceId, simSlot: sms.simSlot, at: sms.receivedAt, senderGroupIds }
  const runs = matchingRules(rules, arriving, timezone).map((rule) => ({ kind: 'rule' as const, ruleId: rule.id, ruleName: rule.name, actions: rule.actions.map((action) => ({ ...action })) }))
  return keyword ? [keyword, ...runs] : runs
}
