import app from '@adonisjs/core/services/app'
import type { HttpContext } from '@adonisjs/core/http'
import { AccessGuard, NoCredentialsGuard, assertAllowed, type Caller, type ProtectedAccess, type Scope } from '#core/http/access'

/**
 * Until the auth module lands, no API key can exist. Platform tests install this authenticator,
 * which knows three fixed keys (one per scope) and otherwise behaves exactly as the core one.
 */
export const testKeys: Record<Scope, string> = {
  read: 'test-key-read-000000000000',
  send: 'test-key-send-000000000000',
  admin: 'test-key-admin-00000000000',
}

class FixedKeysGuard extends AccessGuard {
  #fallback = new NoCredentialsGuard()

  async authorize(ctx: HttpContext, routeAccess: ProtectedAccess): Promise<Caller> {
    const presented = ctx.request.header('x-api-key')
    const scope = (Object.keys(testKeys) as Scope[]).find((name) => testKeys[name] === presented)
    if (!scope) return this.#fallback.authorize(ctx)
    const caller: Caller = { type: 'api_key', id: `test-${scope}`, scope }
    assertAllowed(caller, routeAccess)
    return caller
  }
}

export function useTestKeys(): () => void {
  app.container.swap(AccessGuard, () => new FixedKeysGuard())
  return () => app.container.restore(AccessGuard)
}
