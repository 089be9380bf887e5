import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import RequestContextMiddleware from '#core/http/request_context_middleware'
import BodyGuardMiddleware from '#core/http/body_guard_middleware'
import DashboardCompressionMiddleware from '#core/dashboard/dashboard_compression'
import DashboardFilesMiddleware from '#core/dashboard/dashboard_files'
import DashboardPagesMiddleware from '#core/dashboard/dashboard_pages'

interface Middleware {
  handle(ctx: HttpContext, next: NextFn): unknown
}

/**
 * Every request's server middleware, in order: the request id and its log line, the body
 * guard, then the dashboard (compressed when the browser accepts it, its built files in
 * public/, then index.html for its pages in history mode). Each keeps nothing of a request, so
 * each is made once here; listed one by one in `server.use`, the container would make each of
 * them and call it for every request. Each passes a request on by returning `next()` and does
 * nothing after it, so an error reaches the framework's error handler as it would from the list.
 */
const chain: readonly Middleware[] = [
  new RequestContextMiddleware(),
  new BodyGuardMiddleware(),
  new DashboardCompressionMiddleware(),
  new DashboardFilesMiddleware(),
  new DashboardPagesMiddleware(),
]

export default class ServerMiddleware {
  handle(ctx: HttpContext, next: NextFn) {
    return runFrom(0, ctx, next)
  }
}

function runFrom(index: number, ctx: HttpContext, next: NextFn): unknown {
  const middleware = chain[index]
  if (!middleware) return next()
  return middleware.handle(ctx, () => runFrom(index + 1, ctx, next))
}
