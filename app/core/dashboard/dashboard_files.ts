import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import app from '@adonisjs/core/services/app'
import StaticMiddleware from '@adonisjs/static/static_middleware'
import { isDashboardPath } from '#core/dashboard/dashboard_pages'

/** Built once: the package binds a new one (a new serve-static function) per resolution. */
let files: StaticMiddleware | undefined

/**
 * The dashboard's built files (public/), served by @adonisjs/static for the dashboard's paths
 * only. An API call neither builds nor runs the file server: as the package's own server
 * middleware it was built on every request, a share of the gateway's CPU under load that the
 * profile showed (README, Benchmarks).
 */
export default class DashboardFilesMiddleware {
  async handle(ctx: HttpContext, next: NextFn) {
    const method = ctx.request.method()
    if ((method !== 'GET' && method !== 'HEAD') || !isDashboardPath(ctx.request.url(false))) return next()
    files ??= await app.container.make(StaticMiddleware)
    return files.handle(ctx, next)
  }
}
