import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { AccessGuard, assertAllowed, type Caller, type ProtectedAccess } from '#core/http/access'
import { ApiError } from '#core/http/api_error'
import { ApiKeyService } from '#modules/auth/services/api_key_service'
import { KeyRateLimiter } from '#modules/auth/services/key_rate_limiter'
import { isAddressAllowed } from '#modules/auth/services/ip_allow_list'
import { LicenseService } from '#modules/license/public'
import type User from '#modules/auth/models/user'

/**
 * Who is calling and may they: an `X-API-KEY` header (never a query parameter) wins over a
 * session cookie. For a key: known → allowed address → counted against its limits (so every
 * answer to a limited key carries the X-RateLimit headers) → scope. For a session: its account's
 * role. Then, for a write, the license gate.
 */
@inject()
export class GatewayAccessGuard extends AccessGuard {
  constructor(
    private keys: ApiKeyService,
    private limiter: KeyRateLimiter,
    private license: LicenseService
  ) {
    super()
  }

  async authorize(ctx: HttpContext, routeAccess: ProtectedAccess): Promise<Caller> {
    const presented = ctx.request.header('x-api-key')
    const caller = presented ? await this.#keyCaller(ctx, presented, routeAccess) : await this.#sessionCaller(ctx, routeAccess)
    if (routeAccess.write) this.license.assertWritable()
    return caller
  }

  async #keyCaller(ctx: HttpContext, secret: string, routeAccess: ProtectedAccess): Promise<Caller> {
    const key = await this.keys.recognise(secret)
    if (!key) throw new ApiError('INVALID_API_KEY', 'The API key is unknown or revoked')
    if (key.allowedIps.length && !isAddressAllowed(ctx.request.ip(), key.allowedIps)) {
      throw new ApiError('IP_NOT_ALLOWED', "This API key may not be used from the caller's address")
    }
    const verdict = await this.limiter.count(key)
    for (const [name, value] of Object.entries(verdict.headers)) ctx.response.header(name, value)
    await this.keys.markUsed(key)
    if (verdict.refusal) throw verdict.refusal
    const caller: Caller = { type: 'api_key', id: String(key.id), scope: key.scope, name: key.name }
    assertAllowed(caller, routeAccess)
    return caller
  }

  async #sessionCaller(ctx: HttpContext, routeAccess: ProtectedAccess): Promise<Caller> {
    const user = ctx.auth ? await signedInUser(ctx) : null
    if (!user) throw new ApiError('MISSING_API_KEY', 'Send an API key in the X-API-KEY header, or sign in to the dashboard')
    const caller: Caller = { type: 'session', id: String(user.id), role: user.role, name: user.name }
    assertAllowed(caller, routeAccess)
    return caller
  }
}

/** The account of the session, or null when the cookie names no live session. */
export async function signedInUser(ctx: HttpContext): Promise<User | null> {
  if (!ctx.auth) return null
  const guard = ctx.auth.use('web')
  return (await guard.check()) ? guard.getUserOrFail() : null
}
