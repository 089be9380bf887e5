/*
 * Mounts every route contract (added by the core and module providers) on the router. The
 * OpenAPI document is built from the same registry, so it lists exactly these routes.
 */
import app from '@adonisjs/core/services/app'
import router from '@adonisjs/core/services/router'
import BodyParserMiddleware from '@adonisjs/core/bodyparser_middleware'
import env from '#start/env'
import { RouteRegistry } from '#core/contract/route_registry'
import { AccessGuard } from '#core/http/access'

// The body parser keeps nothing of a request: made once here, where the named middleware
// would have the container make it for each request that reads a body.
const bodyParser = await app.container.make(BodyParserMiddleware)
const registry = await app.container.make(RouteRegistry)
await registry.mount(
  router,
  () => app.container.make(AccessGuard),
  (ctx: any, next: any) => bodyParser.handle(ctx, next),
  (controller) => app.container.make(controller)
)

// Static assets of the reference page (not part of the API, so not a route contract).
router.get('/api-docs/assets/:file', [() => import('#core/system/api_docs_controller'), 'asset'])

// The framework's floor for bench/profile.js: a route registered the framework's way, behind
// the server middleware every request runs and none of the registry's, answering a constant.
// Off unless the benchmark starts the gateway with it (README, Benchmarks).
if (env.get('GATEWAY_BENCH_FLOOR_ROUTE')) {
  router.get('/bench-floor', () => ({ status: 'ok' }))
}
