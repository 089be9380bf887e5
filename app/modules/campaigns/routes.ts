import type { RouteRegistry } from '#core/contract/route_registry'
import { templateRoutes } from '#modules/campaigns/template_routes'
import { campaignRoutes } from '#modules/campaigns/campaign_routes'

/** Templates and campaigns over HTTP (docs/campaigns.md). */
export function campaignsModuleRoutes(registry: RouteRegistry) {
  return [...templateRoutes(registry), ...campaignRoutes(registry)]
}
