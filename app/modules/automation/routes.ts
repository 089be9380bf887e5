import { defineRoutes, type JsonSchema } from '#core/contract/route_contract'
import { isoDateTimeSchema, pageOf } from '#core/contract/schemas'
import type { RouteRegistry } from '#core/contract/route_registry'
import { automationPermissions } from '#modules/automation/permissions'
import {
  createRuleValidator,
  listRulesValidator,
  listRunsValidator,
  ruleOrderValidator,
  testRuleValidator,
  updateRuleValidator,
} from '#modules/automation/validators/rule_validators'

const RulesController = () => import('#modules/automation/controllers/rules_controller')

/** Rules on incoming SMS, their order, their test box and their run log (docs/automation.md). */
export function automationRoutes(registry: RouteRegistry) {
  registry.describeTag('Automation', 'Rules on incoming SMS, opt-out keywords and the rule-run log (docs/automation.md)')
  const fields = (createRuleValidator.toJSONSchema() as { properties: Record<string, JsonSchema> }).properties
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
  }
  const rule = registry.addSchema('Rule', ruleSchema)
  // The answer of a rotation always carries the secret: said so, a typed client need not check.
  const ruleWithSecret = registry.addSchema('RuleWithSecret', { ...ruleSchema, required: [...ruleSchema.required, 'callSecret'] })
  const ruleList = { type: 'object', required: ['data', 'nextCursor'], additionalProperties: false, properties: { data: { type: 'array', items: rule }, nextCursor: { type: 'null' } } }
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
  })
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
        items: { type: 'object', required: ['condition', 'holds'], additionalProperties: false, properties: { condition: (fields.conditions as { items: JsonSchema }).items, holds: { type: 'boolean' } } },
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
          properties: { action: (fields.actions as { items: JsonSchema }).items, reply: { type: ['string', 'null'], description: 'A reply\u2019s text for this sender' } },
        },
      },
      stopsLaterRules: { type: 'boolean' },
    },
  })
  const ruleId = { id: 'Rule identifier' }

  return defineRoutes([
    {
      method: 'GET',
      path: '/api/v1/rules',
      operationId: 'listRules',
      summary: 'Every rule, in the order they run',
      tag: 'Automation',
      access: automationPermissions['rules.read'],
      query: listRulesValidator,
      answer: { status: 200, description: 'The rules (one page: a gateway holds at most 200)', schema: ruleList },
      handler: [RulesController, 'index'],
    },
    {
      method: 'POST',
      path: '/api/v1/rules',
      operationId: 'createRule',
      summary: 'Create a rule (it runs last)',
      tag: 'Automation',
      access: automationPermissions['rules.change'],
      body: createRuleValidator,
      answer: { status: 201, description: 'The rule, with `callSecret` when it calls a URL', schema: rule },
      errors: ['NAME_TAKEN', 'RULE_LIMIT_REACHED'],
      handler: [RulesController, 'store'],
    },
    {
      method: 'PUT',
      path: '/api/v1/rules/order',
      operationId: 'orderRules',
      summary: 'Put the rules in a new order',
      tag: 'Automation',
      access: automationPermissions['rules.change'],
      body: ruleOrderValidator,
      answer: { status: 200, description: 'The rules in their new order', schema: ruleList },
      errors: ['RULE_ORDER_MISMATCH'],
      handler: [RulesController, 'order'],
    },
    {
      method: 'GET',
      path: '/api/v1/rules/runs',
      operationId: 'listRuleRuns',
      summary: 'The rule-run log, newest first',
      tag: 'Automation',
      access: automationPermissions['rules.read'],
      query: listRunsValidator,
      answer: { status: 200, description: 'A page of runs', schema: pageOf(run) },
      handler: [RulesController, 'runs'],
    },
    {
      method: 'GET',
      path: '/api/v1/rules/:id',
      operationId: 'getRule',
      summary: 'One rule',
      tag: 'Automation',
      access: automationPermissions['rules.read'],
      params: ruleId,
      answer: { status: 200, description: 'The rule', schema: rule },
      errors: ['NOT_FOUND'],
      handler: [RulesController, 'show'],
    },
    {
      method: 'PATCH',
      path: '/api/v1/rules/:id',
      operationId: 'updateRule',
      summary: 'Change a rule',
      tag: 'Automation',
      access: automationPermissions['rules.change'],
      params: ruleId,
      body: updateRuleValidator,
      answer: { status: 200, description: 'The rule, with `callSecret` when it first calls a URL now', schema: rule },
      errors: ['NOT_FOUND', 'NAME_TAKEN'],
      handler: [RulesController, 'update'],
    },
    {
      method: 'DELETE',
      path: '/api/v1/rules/:id',
      operationId: 'deleteRule',
      summary: 'Delete a rule (its runs stay in the log under its name)',
      tag: 'Automation',
      access: automationPermissions['rules.change'],
      params: ruleId,
      answer: { status: 204, description: 'Deleted' },
      errors: ['NOT_FOUND'],
      handler: [RulesController, 'destroy'],
    },
    {
      method: 'POST',
      path: '/api/v1/rules/:id/secret',
      operationId: 'rotateRuleSecret',
      summary: 'Draw a new secret for the rule\u2019s URL call (shown once)',
      tag: 'Automation',
      access: automationPermissions['rules.change'],
      params: ruleId,
      answer: { status: 200, description: 'The whole rule, as `GET /rules/{id}` answers it, with its new `callSecret`', schema: ruleWithSecret },
      errors: ['NOT_FOUND', 'RULE_CALLS_NO_URL'],
      handler: [RulesController, 'rotateSecret'],
    },
    {
      method: 'POST',
      path: '/api/v1/rules/:id/test',
      operationId: 'testRule',
      summary: 'How the rule would judge a sample SMS and what it would do, doing nothing',
      tag: 'Automation',
      access: automationPermissions['rules.read'],
      params: ruleId,
      body: testRuleValidator,
      answer: { status: 200, description: 'The verdict', schema: trial },
      errors: ['NOT_FOUND'],
      handler: [RulesController, 'test'],
    },
  ])
}

/** The module's contracts as typed, for its handlers' input (`routeInputs<AutomationRoutes>()`). */
export type AutomationRoutes = ReturnType<typeof automationRoutes>
