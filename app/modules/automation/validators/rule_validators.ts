import vine from '@vinejs/vine'
import type { FieldContext, SchemaTypes } from '@vinejs/vine/types'
import { documentedAs } from '#core/contract/schemas'
import { pageQueryFields } from '#core/pagination/keyset_page'
import { checkPattern } from '#modules/automation/services/text_match'

const id = () => vine.string().regex(/^[1-9]\d{0,15}$/).use(documentedAs({ description: 'An identifier' }))
const slot = () => vine.number({ strict: true }).withoutDecimals().range([0, 7])
const time = () => vine.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/).use(documentedAs({ examples: ['08:30'] }))
const tag = () => vine.string().trim().minLength(1).maxLength(40)

/** A regular expression the linear-time engine accepts (RE2 syntax: no backreferences, no lookaround). */
const re2Pattern = vine.createRule((value: unknown, _options: undefined, field: FieldContext) => {
  if (typeof value !== 'string' || (field.parent as { match?: unknown })?.match !== 'regex') return
  const problem = checkPattern(value)
  if (problem) field.report(`The pattern is not a valid RE2 regular expression: ${problem}`, 're2', field)
})

/**
 * One branch per kind, chosen by its `type`; an unknown type is named in the error. Typed by its
 * kinds, so the value it lets through is the union of theirs (`RuleCondition`, `RuleAction`).
 */
function kindOf<Kinds extends Record<string, SchemaTypes>>(kinds: Kinds, what: string) {
  const names = Object.keys(kinds) as Array<keyof Kinds & string>
  return vine
    .union(names.map((name) => vine.union.if((value) => vine.helpers.isObject(value) && value.type === name, kinds[name])))
    .otherwise((_value, field) => field.report(`The ${what} type must be one of ${names.join(', ')}`, 'type', field))
}

const conditionKinds = {
  text: vine.object({
    type: vine.literal('text'),
    match: vine.enum(['first_word', 'contains', 'regex'] as const).use(documentedAs({ description: 'first_word: the first word equals the value; contains; regex: an RE2 pattern. Case and accents are ignored' })),
    value: vine.string().trim().minLength(1).maxLength(500).use(re2Pattern()),
  }),
  sender_group: vine.object({
    type: vine.literal('sender_group'),
    groupId: id(),
    inGroup: vine.boolean({ strict: true }).use(documentedAs({ description: 'true: the sender is a member; false: is not' })),
  }),
  received_on: vine.object({
    type: vine.literal('received_on'),
    deviceId: id(),
    simSlot: slot().nullable().optional().use(documentedAs({ description: 'Any SIM of the phone when absent or null' })),
  }),
  time_window: vine.object({
    type: vine.literal('time_window'),
    days: vine.array(vine.number({ strict: true }).withoutDecimals().range([1, 7])).minLength(1).maxLength(7).distinct().use(documentedAs({ description: 'ISO weekdays, 1 = Monday' })),
    start: time(),
    end: time().use(documentedAs({ description: 'Excluded; before start: the window runs past midnight (the day is that of its start)' })),
  }),
}

const actionKinds = {
  reply: vine.object({
    type: vine.literal('reply'),
    text: vine.string().trim().minLength(1).maxLength(1600).optional().use(documentedAs({ description: 'The text, with {{variables}} of the sender\u2019s contact. Give text or templateId' })),
    templateId: id().optional(),
    deviceId: id().nullable().optional().use(documentedAs({ description: 'Default: the phone that received the SMS' })),
    simSlot: slot().nullable().optional().use(documentedAs({ description: 'Default: the SIM that received the SMS' })),
  }),
  add_to_group: vine.object({ type: vine.literal('add_to_group'), groupId: id() }),
  remove_from_group: vine.object({ type: vine.literal('remove_from_group'), groupId: id() }),
  add_tags: vine.object({ type: vine.literal('add_tags'), tags: vine.array(tag()).minLength(1).maxLength(20).distinct() }),
  remove_tags: vine.object({ type: vine.literal('remove_tags'), tags: vine.array(tag()).minLength(1).maxLength(20).distinct() }),
  assign: vine.object({ type: vine.literal('assign'), accountId: id().use(documentedAs({ description: 'A dashboard account; null: nobody' })).nullable() }),
  opt_out: vine.object({ type: vine.literal('opt_out') }),
  opt_in: vine.object({ type: vine.literal('opt_in') }),
  call_url: vine.object({
    type: vine.literal('call_url'),
    url: vine.string().trim().maxLength(2000).url({ require_protocol: true, protocols: ['http', 'https'], require_tld: false }).use(documentedAs({ format: 'uri', description: 'Called signed with the rule\u2019s secret (docs/automation.md)' })),
  }),
}

/**
 * A rule's conditions and actions, defined once: the create and update validators check them,
 * their `toJSONSchema()` is what the Rule and RuleTest answers publish, and their `Infer` is the
 * type of the rule's stored and answered conditions and actions (services/rule_shapes.ts).
 */
export const ruleConditions = vine.array(kindOf(conditionKinds, 'condition')).maxLength(20).use(documentedAs({ description: 'All must hold; none: every SMS' }))
export const ruleActions = vine.array(kindOf(actionKinds, 'action')).minLength(1).maxLength(20).use(documentedAs({ description: 'Run in order' }))

const ruleFields = {
  name: vine.string().trim().minLength(1).maxLength(100),
  enabled: vine.boolean({ strict: true }),
  stopAfter: vine.boolean({ strict: true }).use(documentedAs({ description: 'When the rule runs, the rules after it do not' })),
  conditions: ruleConditions,
  actions: ruleActions,
}

export const createRuleValidator = vine.compile(
  vine.object({
    ...ruleFields,
    enabled: ruleFields.enabled.optional(),
    stopAfter: ruleFields.stopAfter.optional(),
    conditions: ruleFields.conditions.optional(),
  })
)

export const updateRuleValidator = vine.compile(
  vine.object({
    name: ruleFields.name.optional(),
    enabled: ruleFields.enabled.optional(),
    stopAfter: ruleFields.stopAfter.optional(),
    conditions: ruleFields.conditions.optional(),
    actions: ruleFields.actions.optional(),
  })
)

export const listRulesValidator = vine.compile(vine.object({ ...pageQueryFields }))

// Not distinct(): a repeated id is a list that does not name every rule once, which the rule book
// answers 409 RULE_ORDER_MISMATCH like a missing or unknown one. The length cap only bounds the body.
export const ruleOrderValidator = vine.compile(
  vine.object({
    ids: vine
      .array(id())
      .maxLength(1000)
      .use(documentedAs({ description: 'Every rule id exactly once, in the order they run; a missing, unknown or repeated id: 409 RULE_ORDER_MISMATCH' })),
  })
)

export const testRuleValidator = vine.compile(
  vine.object({
    text: vine.string().maxLength(1600),
    from: vine.string().trim().minLength(1).maxLength(30).use(documentedAs({ description: 'The sender, E.164 or local dialled form' })),
    deviceId: id().optional().use(documentedAs({ description: 'The phone that would receive it' })),
    simSlot: slot().optional(),
    at: vine.string().regex(/^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:?\d{2})$/).optional().use(documentedAs({ format: 'date-time', description: 'When it would arrive; default now' })),
  })
)

export const listRunsValidator = vine.compile(
  vine.object({
    ...pageQueryFields,
    ruleId: id().optional(),
    kind: vine.enum(['rule', 'keyword'] as const).optional(),
  })
)
