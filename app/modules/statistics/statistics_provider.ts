import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { statisticsPermissions } from '#modules/statistics/permissions'
import { statisticsRoutes } from '#modules/statistics/routes'

/**
 * Read-only figures over the gateway's data. The message counters are its own tables (kept by
 * the triggers of its migrations as messages change); link clicks and opt-outs are read through
 * the links and contacts modules' public files (docs/statistics.md).
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
