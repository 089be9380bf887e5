import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { routeInputs } from '#core/contract/route_contract'
import { MessageVolumeStatistics } from '#modules/statistics/services/message_volume_statistics'
import { QualityStatistics } from '#modules/statistics/services/quality_statistics'
import { EngagementStatistics } from '#modules/statistics/services/engagement_statistics'
import type { StatisticsRoutes } from '#modules/statistics/routes'

/** Each query was validated by the router, an unknown parameter refused (statistics_validators.ts). */
const input = routeInputs<StatisticsRoutes>()

export default class StatisticsController {
  @inject()
  async messages(ctx: HttpContext, statistics: MessageVolumeStatistics) {
    return statistics.messages(input(ctx, 'getMessageVolume').query)
  }

  @inject()
  async breakdown(ctx: HttpContext, statistics: MessageVolumeStatistics) {
    return statistics.breakdown(input(ctx, 'getMessageVolumeBreakdown').query)
  }

  @inject()
  async deliveryRate(ctx: HttpContext, statistics: MessageVolumeStatistics) {
    return statistics.delivery(input(ctx, 'getDeliveryRate').query)
  }

  @inject()
  async failures(ctx: HttpContext, statistics: QualityStatistics) {
    return statistics.failures(input(ctx, 'getFailureReasons').query)
  }

  @inject()
  async latency(ctx: HttpContext, statistics: QualityStatistics) {
    return statistics.latency(input(ctx, 'getMessageLatency').query)
  }

  @inject()
  async links(ctx: HttpContext, statistics: EngagementStatistics) {
    return statistics.linkClicks(input(ctx, 'getLinkClicks').query)
  }

  @inject()
  async optOuts(ctx: HttpContext, statistics: EngagementStatistics) {
    return statistics.optOuts(input(ctx, 'getOptOuts').query)
  }
}
