import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { statisticsPermissions } from '#modules/statistics/permissions'
import { statisticsRoutes } from '#modules/statistics/routes'

/**
 * Read-only figures over other modules' data, reached through their public services (message
 * volume from the messages module). It owns no table (docs/statistics.md).
 */
export default class StatisticsProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ permissions: statisticsPermissions })
  }

  async start() {
    const registry = await this.app.container.make(RouteRegistry)
    registry.add(statisticsRoutes(registry))
  }
}
