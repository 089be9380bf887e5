import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { idParam } from '#core/http/route_params'
import { RuleBook, ruleResource, type RuleFields } from '#modules/automation/services/rule_book'
import { RuleTrial } from '#modules/automation/services/rule_trial'
import { listRuns } from '#modules/automation/services/rule_run_log'
import {
  createRuleValidator,
  listRunsValidator,
  ruleOrderValidator,
  testRuleValidator,
  updateRuleValidator,
} from '#modules/automation/validators/rule_validators'

@inject()
export default class RulesController {
  constructor(private rules: RuleBook) {}

  async index() {
    return { data: (await this.rules.all()).map((rule) => ruleResource(rule)), nextCursor: null }
  }

  async show({ params }: HttpContext) {
    return ruleResource(await this.rules.find(idParam(params.id, 'Rule')))
  }

  async store({ request, response }: HttpContext) {
    const { rule, callSecret } = await this.rules.create(
      (await request.validateUsing(createRuleValidator, { data: request.body() })) as Partial<RuleFields> & Pick<RuleFields, 'name' | 'actions'>
    )
    response.status(201)
    return ruleResource(rule, callSecret)
  }

  async update({ request, params }: HttpContext) {
    const change = (await request.validateUsing(updateRuleValidator, { data: request.body() })) as Partial<RuleFields>
    const { rule, callSecret } = await this.rules.update(idParam(params.id, 'Rule'), change)
    return ruleResource(rule, callSecret)
  }

  async destroy({ params, response }: HttpContext) {
    await this.rules.delete(idParam(params.id, 'Rule'))
    return response.noContent()
  }

  async order({ request }: HttpContext) {
    const { ids } = await request.validateUsing(ruleOrderValidator, { data: request.body() })
    return { data: (await this.rules.reorder(ids.map(Number))).map((rule) => ruleResource(rule)), nextCursor: null }
  }

  async rotateSecret({ params }: HttpContext) {
    const { rule, callSecret } = await this.rules.rotateSecret(idParam(params.id, 'Rule'))
    return ruleResource(rule, callSecret)
  }

  @inject()
  async test({ request, params }: HttpContext, trial: RuleTrial) {
    return trial.test(idParam(params.id, 'Rule'), await request.validateUsing(testRuleValidator, { data: request.body() }))
  }

  async runs({ request }: HttpContext) {
    return listRuns(await request.validateUsing(listRunsValidator, { data: request.qs() }))
  }
}
