import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import compression from 'compression'
import { isDashboardPath } from '#core/dashboard/dashboard_pages'

/**
 * gzip (or deflate) for the dashboard's files and pages when the browser accepts it: its scripts
 * shrink to a fraction of their size, which is what an operator on a phone or a slow VPN link waits
 * for. API answers are left as they are: they are small pages of JSON, and compressing each would
 * cost CPU on the send path; the event stream (`/__transmit`) must never be buffered.
 */
const compress = compression({ threshold: 1024 })

export default class DashboardCompressionMiddleware {
  async handle(ctx: HttpContext, next: NextFn) {
    const method = ctx.request.method()
    if ((method !== 'GET' && method !== 'HEAD') || !isDashboardPath(ctx.request.url(false))) return next()
    // compression wraps the raw response's writeHead/write/end, then calls on at once.
    await new Promise<void>((resolve, reject) =>
      compress(ctx.request.request as never, ctx.response.response as never, (error?: unknown) => (error ? reject(error) : resolve()))
    )
    return next()
  }
}
