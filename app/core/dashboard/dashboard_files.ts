import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import StaticMiddleware from '@adonisjs/static/static_middleware'
import { isDashboardPath } from '#core/dashboard/dashboard_pages'

/**
 * The dashboard's built files (public/), served by @adonisjs/static for the dashboard's paths
 * only: an API call never costs a file-system lookup (it was 10 % of an authenticated GET in the
 * profile, docs/performance in the README).
 */
@inject()
export default class DashboardFilesMiddleware {
  constructor(private files: StaticMiddleware) {}

  handle(ctx: HttpContext, next: NextFn) {
    const method = ctx.request.method()
    if ((method !== 'GET' && method !== 'HEAD') || !isDashboardPath(ctx.request.url(false))) return next()
    return this.files.handle(ctx, next)
  }
}
