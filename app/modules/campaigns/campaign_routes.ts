import { defineRoutes } from '#core/contract/route_contract'
import type { RouteRegistry } from '#core/contract/route_registry'

/** Campaigns: plan, launch, watch, pause, resume, cancel (docs/campaigns.md). */
export function campaignRoutes(_registry: RouteRegistry) {
  return defineRoutes([])
}
