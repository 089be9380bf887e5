import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { RuleBook, ruleResource } from '#modules/automation/services/rule_book'
import { RuleTrial } from '#modules/automation/services/rule_trial'
import { listRuns } from '#modules/automation/services/rule_run_log'
import { routeInputs } from '#core/contract/route_contract'
import type { AutomationRoutes } from '#modules/automation/routes'
import type { RuleList, RuleWithSecret } from '#modules/automation/schemas'

const input = routeInputs<AutomationRoutes>()

@inject()
export default class RulesController {
  constructor(
    private rules: RuleBook,
    private trial: RuleTrial
  ) {}

  async index(): Promise<RuleList> {
    return { data: (await this.rules.all()).map((rule) => ruleResource(rule)), nextCursor: null }
  }

  async show({ params }: HttpContext) {
    return ruleResource(await this.rules.find(idParam(params.id, 'Rule')))
  }

  async store(ctx: HttpContext) {
    const { rule, callSecret } = await this.rules.create(input(ctx, 'createRule').body, ctx.caller!)
    ctx.response.status(201)
    return ruleResource(rule, callSecret)
  }

  async update(ctx: HttpContext) {
    const change = input(ctx, 'updateRule').body
    const { rule, callSecret } = await this.rules.update(idParam(ctx.params.id, 'Rule'), change, ctx.caller!)
    return ruleResource(rule, callSecret)
  }

  async destroy({ params, response, caller }: HttpContext) {
    await this.rules.delete(idParam(params.id, 'Rule'), caller!)
    return response.noContent()
  }

  async order(ctx: HttpContext): Promise<RuleList> {
    const { ids } = input(ctx, 'orderRules').body
    return { data: (await this.rules.reorder(ids.map(Number), ctx.caller!)).map((rule) => ruleResource(rule)), nextCursor: null }
  }

  async rotateSecret({ params, caller }: HttpContext): Promise<RuleWithSecret> {
    const { rule, callSecret } = await this.rules.rotateSecret(idParam(params.id, 'Rule'), caller!)
    return { ...ruleResource(rule), callSecret }
  }

  async test(ctx: HttpContext) {
    return this.trial.test(idParam(ctx.params.id, 'Rule'), input(ctx, 'testRule').body)
  }

  async runs(ctx: HttpContext) {
    return listRuns(input(ctx, 'listRuleRuns').query)
  }
}
