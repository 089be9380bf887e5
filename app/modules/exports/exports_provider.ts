import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { exportRoutes } from '#modules/exports/routes'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { exportPermissions } from '#modules/exports/permissions'

/** Exports: CSV/JSON streams of messages, contacts and conversations; the database export. */
export default class ExportsProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ permissions: exportPermissions })
  }

  async start() {
    const registry = await this.app.container.make(RouteRegistry)
    registry.add(exportRoutes(registry))
  }
}
