import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { routeInputs } from '#core/contract/route_contract'
import { MessageVolumeStatistics } from '#modules/statistics/services/message_volume_statistics'
import { QualityStatistics } from '#modules/statistics/services/quality_statistics'
import { EngagementStatistics } from '#modules/statistics/services/engagement_statistics'
import type { StatisticsRoutes } from '#modules/statistics/routes'

/** Each query was validated by the router, an unknown parameter refused (docs/api-conventions.md, Errors). */
const input = routeInputs<StatisticsRoutes>()

@inject()
export default class StatisticsController {
  constructor(
    private volume: MessageVolumeStatistics,
    private quality: QualityStatistics,
    private engagement: EngagementStatistics
  ) {}
  async messages(ctx: HttpContext) {
    return this.volume.messages(input(ctx, 'getMessageVolume').query)
  }

  async breakdown(ctx: HttpContext) {
    return this.volume.breakdown(input(ctx, 'getMessageVolumeBreakdown').query)
  }

  async deliveryRate(ctx: HttpContext) {
    return this.volume.delivery(input(ctx, 'getDeliveryRate').query)
  }

  async failures(ctx: HttpContext) {
    return this.quality.failures(input(ctx, 'getFailureReasons').query)
  }

  async latency(ctx: HttpContext) {
    return this.quality.latency(input(ctx, 'getMessageLatency').query)
  }

  async links(ctx: HttpContext) {
    return this.engagement.linkClicks(input(ctx, 'getLinkClicks').query)
  }

  async optOuts(ctx: HttpContext) {
    return this.engagement.optOuts(input(ctx, 'getOptOuts').query)
  }
}
