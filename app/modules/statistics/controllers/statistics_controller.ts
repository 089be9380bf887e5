import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import type { VineValidator } from '@vinejs/vine'
import { ApiError } from '#core/http/api_error'
import { quotedPath } from '#core/contract/unknown_fields'
import { MessageVolumeStatistics } from '#modules/statistics/services/message_volume_statistics'
import { QualityStatistics } from '#modules/statistics/services/quality_statistics'
import { EngagementStatistics } from '#modules/statistics/services/engagement_statistics'
import {
  latencyValidator,
  linkClicksValidator,
  messageVolumeValidator,
  optOutsValidator,
  outboundFiguresValidator,
  volumeBreakdownValidator,
} from '#modules/statistics/validators/statistics_validators'

const parameterNames = new WeakMap<object, string[]>()

/** The query parameters a validator names, as the OpenAPI document lists them. */
function namesOf(validator: VineValidator<any, any>): string[] {
  let names = parameterNames.get(validator)
  if (!names) {
    names = Object.keys((validator.toJSONSchema() as { properties?: Record<string, unknown> }).properties ?? {})
    parameterNames.set(validator, names)
  }
  return names
}

/**
 * The query validated, a parameter the endpoint does not name refused (400) rather than dropped:
 * a misspelt filter (`deviceid=2`, `campaign=4`) would otherwise answer the figures of every
 * phone or campaign as if they were the one asked for.
 */
async function validatedQuery<Validator extends VineValidator<any, any>>(request: HttpContext['request'], validator: Validator) {
  const query = request.qs()
  const known = namesOf(validator)
  const unknown = Object.keys(query).filter((name) => !known.includes(name))
  if (unknown.length) {
    const message = `Unknown query parameter; known here: ${known.join(', ')}`
    const details = unknown.slice(0, 20).map((name) => ({ field: quotedPath(name), rule: 'unknown', message }))
    throw new ApiError('VALIDATION_ERROR', message, details)
  }
  return request.validateUsing(validator, { data: query }) as ReturnType<Validator['validate']>
}

export default class StatisticsController {
  @inject()
  async messages({ request }: HttpContext, statistics: MessageVolumeStatistics) {
    return statistics.messages(await validatedQuery(request, messageVolumeValidator))
  }

  @inject()
  async breakdown({ request }: HttpContext, statistics: MessageVolumeStatistics) {
    return statistics.breakdown(await validatedQuery(request, volumeBreakdownValidator))
  }

  @inject()
  async deliveryRate({ request }: HttpContext, statistics: MessageVolumeStatistics) {
    return statistics.delivery(await validatedQuery(request, outboundFiguresValidator))
  }

  @inject()
  async failures({ request }: HttpContext, statistics: QualityStatistics) {
    return statistics.failures(await validatedQuery(request, outboundFiguresValidator))
  }

  @inject()
  async latency({ request }: HttpContext, statistics: QualityStatistics) {
    return statistics.latency(await validatedQuery(request, latencyValidator))
  }

  @inject()
  async links({ request }: HttpContext, statistics: EngagementStatistics) {
    return statistics.linkClicks(await validatedQuery(request, linkClicksValidator))
  }

  @inject()
  async optOuts({ request }: HttpContext, statistics: EngagementStatistics) {
    return statistics.optOuts(await validatedQuery(request, optOutsValidator))
  }
}
