import { defineConfig } from '@adonisjs/shield'
import { SESSION_AGE, SESSION_COOKIE_NAME } from '#config/session'
import type { HttpContext } from '@adonisjs/core/http'

/**
 * CSRF protection for cookie-authenticated writes: the dashboard reads the XSRF-TOKEN cookie
 * and echoes it in the X-XSRF-TOKEN header. Only a session an account is signed in to
 * authenticates anything; a request without the session cookie, or with one of a session no
 * one is signed in to (after a failed sign-in, a sign-out, or a session ended by the gateway),
 * has nothing to protect, so a person can always sign in again (API-key calls never reach
 * this guard). The session and the auth context run before this check.
 */
const shieldConfig = defineConfig({
  csp: { enabled: false, directives: {}, reportOnly: false },
  csrf: {
    enabled: true,
    exceptRoutes: (ctx: HttpContext) => !isSignedInSession(ctx),
    enableXsrfCookie: true,
    methods: ['POST', 'PUT', 'PATCH', 'DELETE'],
    // As long as the session: with the cookies' default 2 h, a dashboard left open without a
    // request for 2 h lost the token and its next write was refused.
    cookieOptions: { sameSite: 'lax', path: '/', maxAge: SESSION_AGE },
  },
  xFrame: { enabled: true, action: 'DENY' },
  hsts: { enabled: false, maxAge: '180 days' },
  contentTypeSniffing: { enabled: true },
})

export function hasSessionCookie(ctx: HttpContext): boolean {
  return (ctx.request.header('cookie') ?? '').split(';').some((part) => part.trim().startsWith(`${SESSION_COOKIE_NAME}=`))
}

/**
 * The request's session is one an account signed in to (its guard's key is in the session).
 * Without the session or auth context at hand it answers yes, so that running the check in the
 * wrong order can only refuse writes, never let one through unchecked.
 */
export function isSignedInSession(ctx: HttpContext): boolean {
  if (!hasSessionCookie(ctx)) return false
  if (!ctx.session || !ctx.auth) return true
  return ctx.session.has(ctx.auth.use('web').sessionKeyName)
}

export default shieldConfig
