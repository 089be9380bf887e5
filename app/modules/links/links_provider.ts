import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { linkPermissions } from '#modules/links/permissions'
import { linkEvents } from '#modules/links/events'
import { linkRoutes } from '#modules/links/routes'

/**
 * Short links: the shortener a send with shortenLinks calls inside its transaction (through
 * `#modules/links/public`), the list of links, the /l/{code} redirect that counts a click and
 * emits link.clicked, and the click counters the statistics read. Its error answers are core's
 * (NOT_FOUND, VALIDATION_ERROR). Builds on core only.
 */
export default class LinksProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ permissions: linkPermissions, events: linkEvents })
  }

  async start() {
    const registry = await this.app.container.make(RouteRegistry)
    registry.add(linkRoutes(registry))
  }
}
