import { defineRoutes } from '#core/contract/route_contract'
import { pageOf } from '#core/contract/schemas'
import { automationSchemas } from '#modules/automation/schemas'
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
  const { rule, ruleWithSecret, ruleList, run, trial } = automationSchemas(registry)
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
