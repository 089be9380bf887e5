import { defineRoutes } from '#core/contract/route_contract'
import type { RouteRegistry } from '#core/contract/route_registry'

/** Message templates: CRUD and preview (docs/campaigns.md). */
export function templateRoutes(_registry: RouteRegistry) {
  return defineRoutes([])
}
