import { inject } from '@adonisjs/core'
import { Emitter } from '@adonisjs/core/events'
import { Logger } from '@adonisjs/core/logger'
import { Clock } from '#core/time/clock'
import { SettingsStore } from '#core/settings/settings_store'
import { dateTimeOf } from '#core/database/utc_date_time'
import { renderTemplate } from '#core/sms/template_text'
import { logSafeError } from '#core/logging/redaction'
import { ReceivedSmsFeed } from '#modules/messages/public'
import { AutomaticReplies } from '#modules/automation/services/automatic_replies'
import { ConversationBook } from '#modules/conversations/public'
import { type ContactProfile as SenderProfile, ContactsByPhone } from '#modules/contacts/public'
import { TemplateLibrary } from '#modules/campaigns/public'
import { RuleCalls } from '#modules/webhooks/public'
import type RuleRun from '#modules/automation/models/rule_run'
import { RuleRunStore, type NewRuleRun } from '#modules/automation/stores/rule_run_store'
import { RuleBook } from '#modules/automation/services/rule_book'
import { isOwnNumber } from '#modules/devices/public'
import type { ActionOutcome, PlannedAction } from '#modules/automation/services/rule_shapes'
import { planRuns } from '#modules/automation/services/rule_planner'
import { transaction } from '#core/database/transaction'

/** Inbound messages planned per transaction, and runs carried out per pass. */
const PLAN_BATCH = 50
const RUN_BATCH = 50
/** The loop guard: automatic replies per number are counted over 10 minutes (docs/automation.md, Actions). */
export const REPLY_WINDOW_MS = 10 * 60_000

/**
 * The rules' durable queue. A pass first plans: it reads the inbound messages stored after the
 * cursor and, in one transaction, writes each one's runs (keyword, matching rules) and moves the
 * cursor past it; a restart before that commit plans them again, after it never. Then it carries
 * out pending runs action by action, recording each outcome as it ends, so a restart resumes at
 * the first action without one; a reply is queued under a key of its run and position, so one
 * that was queued just before a crash is not queued twice.
 */
@inject()
export class RuleRunner {
  constructor(
    private clock: Clock,
    private settings: SettingsStore,
    private logger: Logger,
    private emitter: Emitter<any>,
    private rules: RuleBook,
    private inbound: ReceivedSmsFeed,
    /** The sender's contact, by number: profile, groups, tags, opt-out. */
    private senders: ContactsByPhone,
    /** Replies, queued once per key. */
    private replies: AutomaticReplies,
    /** Assignments. */
    private conversations: ConversationBook,
    private templates: TemplateLibrary,
    private calls: RuleCalls,
    private runs: RuleRunStore
  ) {}

  /** One pass; answers when the next is due (now while work is left, null to sleep until woken). */
  async pass(): Promise<Date | null> {
    const planned = await this.#plan()
    const carried = await this.#carryOut()
    return planned === PLAN_BATCH || carried === RUN_BATCH ? this.clock.now() : null
  }

  async #plan(): Promise<number> {
    const cursor = await this.runs.cursor()
    if (cursor === null) {
      // No cursor (a database whose row was lost): rules start with what arrives from now on,
      // never on every SMS ever received.
      await this.runs.startCursorAt(await this.inbound.latestId())
      return 0
    }
    const messages = await this.inbound.after(cursor, PLAN_BATCH)
    if (!messages.length) return 0
    const rules = await this.rules.enabled()
    const reception = await this.settings.get('reception')
    const { timezone } = await this.settings.get('sending')
    const planned: NewRuleRun[] = []
    const now = this.clock.now().toISOString()
    for (const sms of messages) {
      const profile = rules.some((rule) => rule.conditions.some((condition) => condition.type === 'sender_group'))
        ? await this.senders.profile(sms.phone)
        : null
      for (const run of planRuns(sms, profile?.groupIds ?? [], rules, reception, timezone)) {
        planned.push({
          ruleId: run.ruleId,
          ruleName: run.ruleName,
          kind: run.kind,
          messageId: sms.id,
          conversationId: sms.conversationId,
          phone: sms.phone,
          deviceId: sms.deviceId,
          simSlot: sms.simSlot,
          actions: run.actions,
          createdAt: now,
        })
      }
    }
    await transaction((trx) => this.runs.addRuns(trx, planned, messages.at(-1)!.id))
    return messages.length
  }

  async #carryOut(): Promise<number> {
    const runs = await this.runs.pending(RUN_BATCH)
    for (const run of runs) await this.#carryOutRun(run)
    return runs.length
  }

  async #carryOutRun(run: RuleRun) {
    let profile: SenderProfile | null = null
    const sender = async () => (profile ??= await this.senders.profile(run.phone))
    const actions = [...run.actions]
    for (const [index, action] of actions.entries()) {
      if (action.outcome) continue
      let outcome: ActionOutcome
      try {
        outcome = await this.#carryOutAction(run, index, action, sender)
      } catch (error) {
        this.logger.error({ err: logSafeError(error), run: run.id, action: action.type }, 'a rule action failed')
        outcome = { status: 'failed', detail: 'Unexpected error (see the technical log)' }
      }
      // Profile changes (tags, groups, opt-out) are read again by the next action that needs them.
      if (action.type !== 'reply' && action.type !== 'call_url') profile = null
      actions[index] = { ...action, outcome }
      await this.runs.recordProgress(run, [...actions], run.replies + (action.type === 'reply' && outcome.status === 'done' ? 1 : 0))
    }
    await this.runs.finish(run, dateTimeOf(this.clock.now()))
    if (run.kind === 'rule' && run.ruleId !== null) {
      await this.emitter.emit('rule.triggered', { id: String(run.ruleId), conversationId: String(run.conversationId), at: this.clock.now() })
    }
  }

  async #carryOutAction(run: RuleRun, index: number, action: PlannedAction, sender: () => Promise<SenderProfile>): Promise<ActionOutcome> {
    const senders = this.senders
    switch (action.type) {
      case 'reply':
        return this.#reply(run, index, action, sender)
      case 'add_to_group':
        return done(await senders.addToGroup(run.phone, Number(action.groupId)), 'Added to the group', 'Already in the group')
      case 'remove_from_group':
        return done(await senders.removeFromGroup(run.phone, Number(action.groupId)), 'Removed from the group', 'Was not in the group')
      case 'add_tags':
        return done(await senders.changeTags(run.phone, action.tags, []), 'Tags added', 'Had the tags already')
      case 'remove_tags':
        return done(await senders.changeTags(run.phone, [], action.tags), 'Tags removed', 'Had none of the tags')
      case 'assign':
        await this.conversations.assign(run.conversationId, action.accountId)
        return { status: 'done', detail: action.accountId === null ? 'Conversation unassigned' : 'Conversation assigned' }
      case 'opt_out':
        return done(await senders.setOptedOut(run.phone, true), 'Opted out', 'Was already opted out')
      case 'opt_in':
        return done(await senders.setOptedOut(run.phone, false), 'Opted back in', 'Was not opted out')
      case 'call_url':
        return this.#callUrl(run, action.url)
    }
  }

  async #reply(run: RuleRun, index: number, action: Extract<PlannedAction, { type: 'reply' }>, sender: () => Promise<SenderProfile>): Promise<ActionOutcome> {
    if (await isOwnNumber(run.phone)) return { status: 'skipped', detail: 'The sender is one of the gateway\u2019s own phones: never answered' }
    const { autoReplyLimit } = await this.settings.get('reception')
    const since = new Date(this.clock.nowMs() - REPLY_WINDOW_MS).toISOString()
    const sent = await this.runs.repliesTo(run.phone, since, run.id)
    if (sent + run.replies >= autoReplyLimit) {
      return { status: 'skipped', detail: `Reply limit reached: ${autoReplyLimit} automatic replies per number per 10 minutes` }
    }
    let text = 'text' in action && action.text !== undefined ? action.text : null
    if ('templateId' in action && action.templateId !== undefined) {
      text = await this.templates.bodyOf(Number(action.templateId))
      if (text === null) return { status: 'failed', detail: 'The template was deleted' }
    }
    const body = renderTemplate(text ?? '', await sender())
    if (!body.trim()) return { status: 'failed', detail: 'The reply is empty for this sender' }
    const forced = 'deviceId' in action && action.deviceId !== undefined && action.deviceId !== null
    const outcome = await this.replies.reply({
      phone: run.phone,
      body,
      deviceId: forced ? (action as { deviceId: string }).deviceId : run.deviceId,
      simSlot: 'simSlot' in action && action.simSlot !== undefined ? action.simSlot : forced ? null : run.simSlot,
      key: `rule-run:${run.id}:${index}`,
      evenIfOptedOut: 'evenIfOptedOut' in action && action.evenIfOptedOut,
    })
    if ('messageId' in outcome) return { status: 'done', detail: 'Reply queued', messageId: String(outcome.messageId) }
    if (outcome.refused === 'CONTACT_BLACKLISTED') return { status: 'skipped', detail: 'The sender opted out' }
    return { status: 'failed', detail: `Reply refused: ${outcome.refused}` }
  }

  async #callUrl(run: RuleRun, url: string): Promise<ActionOutcome> {
    const rule = run.ruleId === null ? null : await this.rules.find(run.ruleId).catch(() => null)
    if (!rule) return { status: 'failed', detail: 'The rule was deleted before its call' }
    const secret = this.rules.callSecretOf(rule)
    if (!secret) return { status: 'failed', detail: 'The rule\u2019s secret must be set again (rotate it)' }
    await this.calls.call({
      ruleId: String(rule.id),
      ruleName: rule.name,
      url,
      secret,
      conversationId: String(run.conversationId),
      senderPhone: run.phone,
      occurredOn: this.clock.now(),
    })
    return { status: 'done', detail: 'Call queued (see Webhook deliveries)' }
  }
}

function done(changed: boolean, whenChanged: string, whenNot: string): ActionOutcome {
  return changed ? { status: 'done', detail: whenChanged } : { status: 'skipped', detail: whenNot }
}
