import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { campaignEvents } from '#modules/campaigns/events'
import { campaignPermissions } from '#modules/campaigns/permissions'
import { campaignsModuleRoutes } from '#modules/campaigns/routes'

/**
 * Campaigns and message templates (bulk sending). Contacts and their groups belong to the
 * messages module; a campaign reads its audience and queues its messages through that module's
 * public services (docs/modules.md, docs/campaigns.md).
 */
export default class CampaignsProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ events: campaignEvents, permissions: campaignPermissions })
  }

  async start() {
    const registry = await this.app.container.make(RouteRegistry)
    registry.add(campaignsModuleRoutes(registry))
  }
}
