import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import { ApiError } from '#core/http/api_error'
import { dashboardSession } from '#modules/auth/middleware/dashboard_session'

/**
 * For routes that only a signed-in dashboard may use (the live notice stream): the session runs
 * (with its CSRF check on writes), and a caller without a signed-in session is refused. An API
 * key is no way in: notices are for people watching a dashboard.
 */
export async function signedInDashboard(ctx: HttpContext, next: NextFn) {
  if (ctx.request.header('x-api-key')) throw new ApiError('FORBIDDEN_SCOPE', 'Live notices are for signed-in dashboards, not API keys')
  return dashboardSession(ctx, async () => {
    const signedIn = ctx.auth ? await ctx.auth.use('web').check() : false
    if (!signedIn) throw new ApiError('MISSING_API_KEY', 'Sign in to the dashboard to receive live notices')
    return next()
  })
}
