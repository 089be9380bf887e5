/*
 * Mounts every route contract (added by the core and module providers) on the router. The
 * OpenAPI document is built from the same registry, so it lists exactly these routes.
 */
import app from '@adonisjs/core/services/app'
import router from '@adonisjs/core/services/router'
import { RouteRegistry } from '#core/contract/route_registry'
import { AccessGuard } from '#core/http/access'
import { middleware } from '#start/kernel'

const registry = await app.container.make(RouteRegistry)
registry.mount(router, () => app.container.make(AccessGuard), middleware.bodyParser())

// Static assets of the reference page (not part of the API, so not a route contract).
router.get('/api-docs/assets/:file', [() => import('#core/system/api_docs_controller'), 'asset'])
