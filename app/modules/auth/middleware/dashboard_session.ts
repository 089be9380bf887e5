import app from '@adonisjs/core/services/app'
import type { HttpContext } from '@adonisjs/core/http'
import type { NextFn } from '@adonisjs/core/types/http'
import SessionMiddleware from '@adonisjs/session/session_middleware'
import ShieldMiddleware from '@adonisjs/shield/shield_middleware'
import InitializeAuthMiddleware from '@adonisjs/auth/initialize_auth_middleware'
import { hasSessionCookie } from '#config/shield'
import { SESSION_COOKIE_NAME } from '#config/session'

/** Routes that may start a session for a caller who has none yet. */
const SESSION_OPENERS = new Set(['/api/v1/auth/setup', '/api/v1/auth/login'])

/**
 * Runs the dashboard's session, CSRF check and auth context, only where a session can matter:
 * never for an API-key call (a key wins, and must not create session rows or need CSRF), and
 * for a caller without the session cookie only on sign-in and first-account setup. Monitors
 * polling the API therefore never fill the sessions table.
 */
export async function dashboardSession(ctx: HttpContext, next: NextFn) {
  const opener = SESSION_OPENERS.has(ctx.route?.pattern ?? '')
  // A key wins everywhere except where a person signs in (a key header there is ignored).
  if (ctx.request.header('x-api-key') && !opener) return next()
  const withCookie = hasSessionCookie(ctx)
  if (!withCookie && !opener) return next()

  const [session, shield, auth] = await Promise.all([
    app.container.make(SessionMiddleware),
    app.container.make(ShieldMiddleware),
    app.container.make(InitializeAuthMiddleware),
  ])
  // The auth context runs before the CSRF check: the check applies to signed-in sessions only
  // (see config/shield.ts), so a browser whose session no one is signed in to can sign in again.
  const result = withCookie
    ? await session.handle(ctx, () => auth.handle(ctx, () => shield.handle(ctx, next)))
    : // A first sign-in: the session (and its CSRF secret and XSRF-TOKEN cookie) is made only
      // when it succeeds, so failed attempts leave no session rows behind.
      await session.handle(ctx, async () => {
        const answer = await auth.handle(ctx, next)
        if (ctx.auth?.use('web').user) await shield.handle(ctx, async () => {})
        return answer
      })
  // Nor a session cookie: it would name a session that does not exist.
  if (!withCookie && !ctx.auth?.use('web').user) dropSessionCookie(ctx)
  markCookiesSecureOverHttps(ctx)
  return result
}

function dropSessionCookie(ctx: HttpContext) {
  const cookies = ctx.response.getHeader('set-cookie')
  if (!cookies) return
  const kept = (Array.isArray(cookies) ? cookies : [String(cookies)]).filter((cookie) => !cookie.startsWith(`${SESSION_COOKIE_NAME}=`))
  if (kept.length > 0) ctx.response.header('set-cookie', kept)
  else ctx.response.removeHeader('set-cookie')
}

/**
 * Cookie flags (docs/accounts.md, Sessions): Secure whenever the gateway is reached over https
 * (directly or via a trusted proxy).
 */
function markCookiesSecureOverHttps(ctx: HttpContext) {
  if (!ctx.request.secure()) return
  const cookies = ctx.response.getHeader('set-cookie')
  if (!cookies) return
  const list = (Array.isArray(cookies) ? cookies : [String(cookies)]).map((cookie) =>
    /;\s*secure/i.test(cookie) ? cookie : `${cookie}; Secure`
  )
  ctx.response.header('set-cookie', list)
}
