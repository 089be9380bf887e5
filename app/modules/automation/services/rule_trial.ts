import { inject } from '@adonisjs/core'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { SettingsStore } from '#core/settings/settings_store'
import { renderTemplate } from '#core/sms/template_text'
import { ContactsByPhone } from '#modules/contacts/public'
import { TemplateLibrary } from '#modules/campaigns/public'
import { RuleBook } from '#modules/automation/services/rule_book'
import { conditionHolds } from '#modules/automation/services/rule_conditions'
import { keywordRun } from '#modules/automation/services/rule_planner'
import type { RuleAction } from '#modules/automation/services/rule_shapes'
import type { RuleTestAnswer } from '#modules/automation/schemas'

export interface RuleTrialInput {
  text: string
  from: string
  deviceId?: string
  simSlot?: number
  at?: string
}

/**
 * POST /rules/{id}/test: how a rule would judge a sample SMS, and what it would do, doing
 * nothing (no message, no contact change, no call).
 */
@inject()
export class RuleTrial {
  constructor(
    private clock: Clock,
    private phoneNumbers: PhoneNumbers,
    private settings: SettingsStore,
    private rules: RuleBook,
    private senders: ContactsByPhone,
    private templates: TemplateLibrary
  ) {}

  async test(ruleId: number, input: RuleTrialInput): Promise<RuleTestAnswer> {
    const rule = await this.rules.find(ruleId)
    const reception = await this.settings.get('reception')
    const { timezone } = await this.settings.get('sending')
    let phone: string
    try {
      phone = this.phoneNumbers.normalize(input.from, reception.localPrefix)
    } catch {
      throw ApiError.validation('from', 'phone', `The from field must be a phone number in E.164${reception.localPrefix ? ' or local dialled' : ''} form`)
    }
    const at = input.at ? new Date(input.at) : this.clock.now()
    if (Number.isNaN(at.getTime())) throw ApiError.validation('at', 'date', 'The at field must be an ISO 8601 date-time')
    const sender = await this.senders.profile(phone)
    const sms = { text: input.text, deviceId: input.deviceId ?? null, simSlot: input.simSlot ?? null, at, senderGroupIds: sender.groupIds }
    const conditions = rule.conditions.map((condition) => ({ condition, holds: conditionHolds(condition, sms, timezone) }))
    const matches = conditions.every((condition) => condition.holds)
    const keyword = keywordRun(input.text, reception)
    return {
      matches,
      enabled: rule.enabled,
      conditions,
      keyword: keyword ? keyword.ruleName : null,
      senderOptedOut: sender.optedOut,
      actions: matches ? await Promise.all(rule.actions.map((action) => this.#describe(action, sender))) : [],
      stopsLaterRules: matches && rule.stopAfter,
    }
  }

  /** The action as it would run: a reply with its text for this sender. */
  async #describe(action: RuleAction, sender: Awaited<ReturnType<ContactsByPhone['profile']>>) {
    if (action.type !== 'reply') return { action, reply: null }
    const text = action.templateId ? await this.templates.bodyOf(Number(action.templateId)) : (action.text ?? null)
    return { action, reply: text === null ? null : renderTemplate(text, sender) }
  }
}
