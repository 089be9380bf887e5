import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
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

export default class StatisticsController {
  @inject()
  async messages({ request }: HttpContext, statistics: MessageVolumeStatistics) {
    return statistics.messages(await request.validateUsing(messageVolumeValidator, { data: request.qs() }))
  }

  @inject()
  async breakdown({ request }: HttpContext, statistics: MessageVolumeStatistics) {
    return statistics.breakdown(await request.validateUsing(volumeBreakdownValidator, { data: request.qs() }))
  }

  @inject()
  async deliveryRate({ request }: HttpContext, statistics: MessageVolumeStatistics) {
    return statistics.delivery(await request.validateUsing(outboundFiguresValidator, { data: request.qs() }))
  }

  @inject()
  async failures({ request }: HttpContext, statistics: QualityStatistics) {
    return statistics.failures(await request.validateUsing(outboundFiguresValidator, { data: request.qs() }))
  }

  @inject()
  async latency({ request }: HttpContext, statistics: QualityStatistics) {
    return statistics.latency(await request.validateUsing(latencyValidator, { data: request.qs() }))
  }

  @inject()
  async links({ request }: HttpContext, statistics: EngagementStatistics) {
    return statistics.linkClicks(await request.validateUsing(linkClicksValidator, { data: request.qs() }))
  }

  @inject()
  async optOuts({ request }: HttpContext, statistics: EngagementStatistics) {
    return statistics.optOuts(await request.validateUsing(optOutsValidator, { data: request.qs() }))
  }
}
