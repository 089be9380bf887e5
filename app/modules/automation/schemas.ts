import type { RouteRegistry } from '#core/contract/route_registry'
import type { JsonOf, ValueSchema } from '#core/contract/typed_schema'
import { isoDateTimeSchema, validatorSchema, type PageOf } from '#core/contract/schemas'
import { ruleActions, ruleConditions } from '#modules/automation/validators/rule_validators'

/**
 * The rule, rule-run and rule-test answers as published in the OpenAPI document (docs/automation.md).
 * A rule's conditions and actions are answered as their validator took them in: their schema is
 * that validator's, read when the routes are built, and typed by it (`validatorSchema`).
 */
export function automationSchemas(registry: RouteRegistry) {
  const fields = { conditions: validatorSchema(ruleConditions), actions: validatorSchema(ruleActions) }
  const ruleSchema = {
    type: 'object',
    required: ['id', 'name', 'enabled', 'position', 'stopAfter', 'conditions', 'actions', 'callsUrl', 'createdAt', 'updatedAt'],
    additionalProperties: false,
    properties: {
      id: { type: 'string' },
      name: { type: 'string', description: 'Unique (case-insensitive)' },
      enabled: { type: 'boolean' },
      position: { type: 'integer', minimum: 1, description: 'Rules run by ascending position' },
      stopAfter: { type: 'boolean', description: 'When this rule runs, the rules after it do not' },
      conditions: fields.conditions,
      actions: fields.actions,
      callsUrl: { type: 'boolean', description: 'The rule has a call_url action (and so a secret)' },
      callSecret: {
        type: 'string',
        description: 'Only in the answer that drew it (the rule first calls a URL, or its secret is rotated): shown this once, stored sealed',
      },
      createdAt: isoDateTimeSchema,
      updatedAt: isoDateTimeSchema,
    },
  } as const
  const rule = registry.addSchema('Rule', ruleSchema)
  // The answer of a rotation always carries the secret: said so, a typed client need not check.
  const ruleWithSecret = registry.addSchema('RuleWithSecret', { ...ruleSchema, required: [...ruleSchema.required, 'callSecret'] })
  const ruleList = {
    type: 'object',
    required: ['data', 'nextCursor'],
    additionalProperties: false,
    properties: { data: { type: 'array', items: rule }, nextCursor: { type: 'null' } },
  } as const
  const run = registry.addSchema('RuleRun', {
    type: 'object',
    required: ['id', 'ruleId', 'ruleName', 'kind', 'messageId', 'conversationId', 'maskedPhone', 'deviceId', 'simSlot', 'status', 'actions', 'createdAt', 'finishedAt'],
    additionalProperties: false,
    properties: {
      id: { type: 'string' },
      ruleId: { type: ['string', 'null'], description: 'null for a built-in keyword' },
      ruleName: { type: 'string', description: 'As it was at the run (kept when the rule is deleted)' },
      kind: { enum: ['rule', 'keyword'] },
      messageId: { type: 'string', description: 'The inbound SMS' },
      conversationId: { type: 'string' },
      maskedPhone: { type: 'string', description: 'The sender, masked' },
      deviceId: { type: ['string', 'null'], description: 'The phone that received it' },
      simSlot: { type: ['integer', 'null'] },
      status: { enum: ['pending', 'done'] },
      actions: {
        type: 'array',
        items: {
          type: 'object',
          required: ['type', 'status', 'detail', 'messageId'],
          additionalProperties: false,
          properties: {
            type: { type: 'string' },
            status: { enum: ['pending', 'done', 'skipped', 'failed'] },
            detail: { type: ['string', 'null'], description: 'What happened, in plain words' },
            messageId: { type: ['string', 'null'], description: 'The reply queued' },
          },
        },
      },
      createdAt: isoDateTimeSchema,
      finishedAt: { ...isoDateTimeSchema, type: ['string', 'null'] },
    },
  } as const)
  const trial = registry.addSchema('RuleTest', {
    type: 'object',
    required: ['matches', 'enabled', 'conditions', 'keyword', 'senderOptedOut', 'actions', 'stopsLaterRules'],
    additionalProperties: false,
    properties: {
      matches: { type: 'boolean', description: 'Every condition holds' },
      enabled: { type: 'boolean', description: 'A disabled rule never runs, whatever it matches' },
      conditions: {
        type: 'array',
        description: 'Each condition of the rule and whether it holds',
        items: { type: 'object', required: ['condition', 'holds'], additionalProperties: false, properties: { condition: itemOf(fields.conditions), holds: { type: 'boolean' } } },
      },
      keyword: {
        type: ['string', 'null'],
        pattern: '^(Opt-out|Opt-in|Help) keyword \\S+$',
        examples: ['Opt-out keyword STOP'],
        description:
          'The built-in keyword the whole text is, which would run first, named as its run is in the run log: the kind, then the keyword as listed in Settings \u203a Reception, upper-cased. null: none (or the keywords are off)',
      },
      senderOptedOut: { type: 'boolean', description: 'Replies to this sender would be skipped' },
      actions: {
        type: 'array',
        description: 'What would run, in order (none when it does not match)',
        items: {
          type: 'object',
          required: ['action', 'reply'],
          additionalProperties: false,
          properties: { action: itemOf(fields.actions), reply: { type: ['string', 'null'], description: 'A reply\u2019s text for this sender' } },
        },
      },
      stopsLaterRules: { type: 'boolean' },
    },
  } as const)
  return { rule, ruleWithSecret, ruleList, run, trial }
}

/** The schema of a list's item, typed as one of the list's values. */
function itemOf<T>(list: ValueSchema<T[]>): ValueSchema<T> {
  return list.items as ValueSchema<T>
}

type Schemas = ReturnType<typeof automationSchemas>
/** A rule as answered (`ruleResource`, services/rule_book.ts). */
export type RuleResource = JsonOf<Schemas['rule']>
export type RuleWithSecret = JsonOf<Schemas['ruleWithSecret']>
export type RuleList = JsonOf<Schemas['ruleList']>
/** A run as answered (`runResource`, services/rule_run_log.ts). */
export type RuleRunResource = JsonOf<Schemas['run']>
export type RuleRunPage = PageOf<Schemas['run']>
export type RuleTestAnswer = JsonOf<Schemas['trial']>
