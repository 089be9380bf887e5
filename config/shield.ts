import { defineConfig } from '@adonisjs/shield'
import { SESSION_COOKIE_NAME } from '#config/session'
import type { HttpContext } from '@adonisjs/core/http'

/**
 * CSRF protection for cookie-authenticated writes: the dashboard reads the XSRF-TOKEN cookie
 * and echoes it in the X-XSRF-TOKEN header. A request without the session cookie cannot be
 * authenticated by it, so it has nothing to protect (API-key calls never reach this guard).
 */
const shieldConfig = defineConfig({
  csp: { enabled: false, directives: {}, reportOnly: false },
  csrf: {
    enabled: true,
    exceptRoutes: (ctx: HttpContext) => !hasSessionCookie(ctx),
    enableXsrfCookie: true,
    methods: ['POST', 'PUT', 'PATCH', 'DELETE'],
    cookieOptions: { sameSite: 'lax', path: '/' },
  },
  xFrame: { enabled: true, action: 'DENY' },
  hsts: { enabled: false, maxAge: '180 days' },
  contentTypeSniffing: { enabled: true },
})

export function hasSessionCookie(ctx: HttpContext): boolean {
  return (ctx.request.header('cookie') ?? '').split(';').some((part) => part.trim().startsWith(`${SESSION_COOKIE_NAME}=`))
}

export default shieldConfig
