import { randomBytes } from 'node:crypto'
import { inject } from '@adonisjs/core'
import { Clock } from '#core/time/clock'
import { Secrets } from '#core/secrets/secrets'
import { ApiError } from '#core/http/api_error'
import type { Caller } from '#core/http/access'
import { ActivityLog } from '#core/activity/activity_log'
import { dateTimeOf, toIso } from '#core/database/utc_date_time'
import { ContactGroups } from '#modules/contacts/public'
import { TemplateLibrary } from '#modules/campaigns/public'
import { UserService } from '#modules/auth/public'
import { phoneExists } from '#modules/devices/public'
import { RuleCalls } from '#modules/webhooks/public'
import type AutomationRule from '#modules/automation/models/automation_rule'
import { RuleStore } from '#modules/automation/stores/rule_store'
import type { RuleAction, RuleCondition } from '#modules/automation/services/rule_shapes'
import { transaction } from '#core/database/transaction'
import type { RuleResource } from '#modules/automation/schemas'

export interface RuleFields {
  name: string
  enabled: boolean
  stopAfter: boolean
  conditions: RuleCondition[]
  actions: RuleAction[]
}

/** Rules at most: each SMS is read against every enabled one. */
export const MAX_RULES = 200

/**
 * Automation rules: CRUD, their order, and the secret of their URL call (drawn by the gateway,
 * answered once, kept sealed). What a rule names (groups, templates, phones, accounts) must exist
 * when it is saved; if it goes later, the action fails in the run log and the others still run.
 */
@inject()
export class RuleBook {
  constructor(
    private clock: Clock,
    private secrets: Secrets,
    private activity: ActivityLog,
    private groups: ContactGroups,
    private templates: TemplateLibrary,
    private users: UserService,
    private calls: RuleCalls,
    private store: RuleStore
  ) {}

  /** Every rule, in the order they run. */
  async all(): Promise<AutomationRule[]> {
    return this.store.inOrder()
  }

  async enabled(): Promise<AutomationRule[]> {
    return this.store.enabledInOrder()
  }

  async find(id: number): Promise<AutomationRule> {
    const rule = await this.store.find(id)
    if (!rule) throw ApiError.notFound('Rule')
    return rule
  }

  /** The rule and, when one was drawn now, its URL call's secret (shown this once). */
  async create(fields: Partial<RuleFields> & Pick<RuleFields, 'name' | 'actions'>, by: Caller | null): Promise<{ rule: AutomationRule; callSecret: string | null }> {
    await this.#assertNameFree(fields.name)
    await this.#assertReferences(fields.conditions ?? [], fields.actions)
    const { count, lastPosition } = await this.store.countAndLastPosition()
    if (count >= MAX_RULES) {
      throw new ApiError('RULE_LIMIT_REACHED', `A gateway holds at most ${MAX_RULES} rules; delete one to make room`, { limit: MAX_RULES })
    }
    const now = dateTimeOf(this.clock.now())
    const callSecret = callsUrl(fields.actions) ? drawRuleSecret() : null
    const rule = await this.store.add({
      name: fields.name,
      enabled: fields.enabled ?? true,
      stopAfter: fields.stopAfter ?? false,
      conditions: fields.conditions ?? [],
      actions: fields.actions,
      position: lastPosition + 1,
      callSecretSealed: callSecret ? this.secrets.seal(callSecret) : null,
      at: now,
    })
    await this.activity.actingFor(by).info('automation', 'rule.created', `Rule "${rule.name}" created`, { ruleId: String(rule.id) })
    return { rule, callSecret }
  }

  async update(id: number, change: Partial<RuleFields>, by: Caller | null): Promise<{ rule: AutomationRule; callSecret: string | null }> {
    const rule = await this.find(id)
    if (change.name !== undefined && change.name.toLowerCase() !== rule.name.toLowerCase()) await this.#assertNameFree(change.name)
    await this.#assertReferences(change.conditions ?? [], change.actions ?? [])
    let callSecret: string | null = null
    let callSecretSealed: string | null | undefined
    if (change.actions) {
      if (!callsUrl(change.actions)) callSecretSealed = null
      else if (!rule.callSecretSealed) {
        callSecret = drawRuleSecret()
        callSecretSealed = this.secrets.seal(callSecret)
      }
    }
    await this.store.change(rule, { ...(callSecretSealed === undefined ? {} : { callSecretSealed }), ...change, updatedAt: dateTimeOf(this.clock.now()) })
    if (change.actions) await this.#callsFollow(rule)
    await this.activity.actingFor(by).info('automation', 'rule.changed', `Rule "${rule.name}" changed: ${Object.keys(change).join(', ')}`, { ruleId: String(rule.id), fields: Object.keys(change) })
    return { rule, callSecret }
  }

  async delete(id: number, by: Caller | null): Promise<void> {
    const rule = await this.find(id)
    await this.store.remove(rule)
    await this.calls.follow(String(id), null)
    await this.activity.actingFor(by).info('automation', 'rule.deleted', `Rule "${rule.name}" deleted`, { ruleId: String(rule.id) })
  }

  /** A new secret for the rule's URL call, shown this once; the old one stops signing now. */
  async rotateSecret(id: number, by: Caller | null): Promise<{ rule: AutomationRule; callSecret: string }> {
    const rule = await this.find(id)
    if (!callsUrl(rule.actions)) throw new ApiError('RULE_CALLS_NO_URL', 'This rule calls no URL: it has no secret')
    const callSecret = drawRuleSecret()
    await this.store.change(rule, { callSecretSealed: this.secrets.seal(callSecret), updatedAt: dateTimeOf(this.clock.now()) })
    await this.#callsFollow(rule)
    await this.activity.actingFor(by).info('automation', 'rule.changed', `Secret of rule "${rule.name}" rotated`, { ruleId: String(rule.id) })
    return { rule, callSecret }
  }

  /** The secret the rule's calls are signed with, or null when it must be rotated (restored without its key). */
  callSecretOf(rule: AutomationRule): string | null {
    if (!rule.callSecretSealed) return null
    const revealed = this.secrets.reveal(rule.callSecretSealed)
    return revealed.readable ? revealed.value : null
  }

  /**
   * Puts the rules in this order: the list must name every rule exactly once. A missing, unknown
   * or repeated id is refused as one mismatch, the ids at fault named so a client can fix its list.
   */
  async reorder(ids: number[], by: Caller | null): Promise<AutomationRule[]> {
    const rules = await this.all()
    const known = new Set(rules.map((rule) => rule.id))
    const listed = new Set(ids)
    const missing = [...known].filter((id) => !listed.has(id))
    const unknown = [...listed].filter((id) => !known.has(id))
    const repeated = [...listed].filter((id) => ids.indexOf(id) !== ids.lastIndexOf(id))
    if (missing.length || unknown.length || repeated.length) {
      throw new ApiError('RULE_ORDER_MISMATCH', `The order must name each of the ${known.size} rules exactly once`, {
        missing: missing.map(String),
        unknown: unknown.map(String),
        repeated: repeated.map(String),
      })
    }
    await transaction((trx) => this.store.setOrder(trx, ids))
    await this.activity.actingFor(by).info('automation', 'rule.changed', 'Rules put in a new order')
    return this.all()
  }

  async #assertNameFree(name: string) {
    if (await this.store.nameTaken(name)) {
      throw new ApiError('NAME_TAKEN', 'Another rule has this name', [{ field: 'name', rule: 'unique', message: 'Another rule has this name' }])
    }
  }

  /** What a rule names must exist (and its URL be one a rule may call) when it is saved. */
  async #assertReferences(conditions: RuleCondition[], actions: RuleAction[]) {
    const missing = (field: string, what: string) => ApiError.validation(field, 'exists', `${what} does not exist`)
    for (const [index, condition] of conditions.entries()) {
      if (condition.type === 'sender_group') await this.#group(condition.groupId, `conditions.${index}.groupId`)
      if (condition.type === 'received_on' && !(await phoneExists(Number(condition.deviceId)))) throw missing(`conditions.${index}.deviceId`, 'This phone')
    }
    for (const [index, action] of actions.entries()) {
      const field = (name: string) => `actions.${index}.${name}`
      switch (action.type) {
        case 'reply':
          if ((action.text === undefined) === (action.templateId === undefined)) {
            throw ApiError.validation(field('text'), 'oneOf', 'A reply takes either text or templateId')
          }
          if (action.templateId && (await this.templates.bodyOf(Number(action.templateId))) === null) throw missing(field('templateId'), 'This template')
          if (action.deviceId && !(await phoneExists(Number(action.deviceId)))) throw missing(field('deviceId'), 'This phone')
          break
        case 'add_to_group':
        case 'remove_from_group':
          await this.#group(action.groupId, field('groupId'))
          break
        case 'assign':
          if (action.accountId !== null) await this.users.find(Number(action.accountId)).catch(() => Promise.reject(missing(field('accountId'), 'This account')))
          break
        case 'call_url': {
          const refusal = this.calls.refusal(action.url)
          if (refusal) throw ApiError.validation(field('url'), 'destination', refusal)
          break
        }
      }
    }
    if (actions.filter((action) => action.type === 'call_url').length > 1) {
      throw ApiError.validation('actions', 'callUrl', 'A rule calls at most one URL')
    }
  }

  /**
   * The rule's calls still waiting for an attempt go to its URL as it is now, signed with its
   * secret as it is now, like a webhook's retries (docs/webhooks.md, Rule calls); without a URL
   * they are dropped. A secret that cannot be read (restored without its key) leaves them as
   * they are: they fail on it until the secret is rotated.
   */
  async #callsFollow(rule: AutomationRule) {
    const action = rule.actions.find((candidate) => candidate.type === 'call_url')
    if (!action) return this.calls.follow(String(rule.id), null)
    const secret = this.callSecretOf(rule)
    if (secret) await this.calls.follow(String(rule.id), { url: action.url, secret })
  }

  async #group(id: string, field: string) {
    try {
      await this.groups.find(Number(id))
    } catch {
      throw ApiError.validation(field, 'exists', 'This group does not exist')
    }
  }
}

function callsUrl(actions: RuleAction[]): boolean {
  return actions.some((action) => action.type === 'call_url')
}

/** 256 random bits, like a webhook's. */
function drawRuleSecret(): string {
  return `rsec_${randomBytes(32).toString('base64url')}`
}

/** A rule as the API answers it (its secret never; `callSecret` only in the answer that drew it). */
export function ruleResource(rule: AutomationRule, callSecret: string | null = null): RuleResource {
  return {
    id: String(rule.id),
    name: rule.name,
    enabled: rule.enabled,
    position: rule.position,
    stopAfter: rule.stopAfter,
    conditions: rule.conditions,
    actions: rule.actions,
    createdAt: toIso(rule.createdAt),
    updatedAt: toIso(rule.updatedAt),
    callsUrl: callsUrl(rule.actions),
    ...(callSecret ? { callSecret } : {}),
  }
}
