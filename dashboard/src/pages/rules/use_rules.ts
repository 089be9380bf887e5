import { api, answer } from '../../api/client'
import type { components } from '../../api/schema'

export type Rule = components['schemas']['Rule']
export type RuleRun = components['schemas']['RuleRun']
export type RuleTest = components['schemas']['RuleTest']
export type RuleCondition = Rule['conditions'][number]
export type RuleAction = Rule['actions'][number]
export type RuleFields = Pick<Rule, 'name' | 'enabled' | 'stopAfter' | 'conditions' | 'actions'>

export async function listRules() {
  return (await answer(api.GET('/api/v1/rules'))).data
}
export async function getRule(id: string) {
  return answer(api.GET('/api/v1/rules/{id}', { params: { path: { id } } }))
}
export async function saveRule(id: string | null, fields: RuleFields) {
  return id ? answer(api.PATCH('/api/v1/rules/{id}', { params: { path: { id } }, body: fields })) : answer(api.POST('/api/v1/rules', { body: fields }))
}
export async function setRuleEnabled(id: string, enabled: boolean) {
  return answer(api.PATCH('/api/v1/rules/{id}', { params: { path: { id } }, body: { enabled } }))
}
export async function deleteRule(id: string) {
  await answer(api.DELETE('/api/v1/rules/{id}', { params: { path: { id } } }))
}
export async function orderRules(ids: string[]) {
  return (await answer(api.PUT('/api/v1/rules/order', { body: { ids } }))).data
}
export async function rotateRuleSecret(id: string) {
  return answer(api.POST('/api/v1/rules/{id}/secret', { params: { path: { id } } }))
}
export async function testRule(id: string, sample: { text: string; from: string }) {
  return answer(api.POST('/api/v1/rules/{id}/test', { params: { path: { id } }, body: sample }))
}
export async function listRuns(ruleId: string | null, cursor?: string) {
  return answer(api.GET('/api/v1/rules/runs', { params: { query: { ...(ruleId ? { ruleId } : {}), ...(cursor ? { cursor } : {}) } } }))
}

export const conditionKinds: Record<RuleCondition['type'], string> = {
  text: 'The text',
  sender_group: 'The sender’s group',
  received_on: 'Received on a phone',
  time_window: 'Time of day and weekday',
}

export const actionKinds: Record<RuleAction['type'], string> = {
  reply: 'Reply',
  add_to_group: 'Add to a group',
  remove_from_group: 'Remove from a group',
  add_tags: 'Add tags',
  remove_tags: 'Remove tags',
  assign: 'Assign the conversation',
  opt_out: 'Opt the sender out',
  opt_in: 'Opt the sender back in',
  call_url: 'Call a URL',
}

export const weekdays = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']

/** A new condition or action of a kind, with its fields at sensible starting values. */
export function blankCondition(type: RuleCondition['type']): RuleCondition {
  switch (type) {
    case 'text':
      return { type, match: 'first_word', value: '' }
    case 'sender_group':
      return { type, groupId: '', inGroup: true }
    case 'received_on':
      return { type, deviceId: '', simSlot: null }
    case 'time_window':
      return { type, days: [1, 2, 3, 4, 5], start: '09:00', end: '18:00' }
  }
}

export function blankAction(type: RuleAction['type']): RuleAction {
  switch (type) {
    case 'reply':
      return { type, text: '' }
    case 'add_to_group':
    case 'remove_from_group':
      return { type, groupId: '' }
    case 'add_tags':
    case 'remove_tags':
      return { type, tags: [] }
    case 'assign':
      return { type, accountId: null }
    case 'call_url':
      return { type, url: '' }
    default:
      return { type } as RuleAction
  }
}

/** One line saying what a condition asks, for the list. */
export function describeCondition(condition: RuleCondition): string {
  switch (condition.type) {
    case 'text':
      return condition.match === 'first_word' ? `first word is “${condition.value}”` : condition.match === 'contains' ? `text contains “${condition.value}”` : `text matches /${condition.value}/`
    case 'sender_group':
      return condition.inGroup ? 'sender in a group' : 'sender not in a group'
    case 'received_on':
      return condition.simSlot === null || condition.simSlot === undefined ? 'received on a given phone' : `received on a given phone, SIM ${condition.simSlot + 1}`
    case 'time_window':
      return `${condition.days.map((day) => weekdays[day - 1]).join(', ')} ${condition.start}–${condition.end}`
  }
}
