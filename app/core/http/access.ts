import type { HttpContext } from '@adonisjs/core/http'
import { ApiError } from '#core/http/api_error'

/** API-key scopes (docs/api-conventions.md, Authentication): ordered, each includes the ones before it. */
export const scopes = ['read', 'send', 'admin'] as const
export type Scope = (typeof scopes)[number]

export const roles = ['readonly', 'operator', 'superadmin'] as const
export type Role = (typeof roles)[number]

/**
 * Who may call a route. A protected route names the lowest API-key scope it needs (`null`:
 * refused to every key, a signed-in person is needed) and the dashboard roles it is open to.
 */
export type RouteAccess =
  | { kind: 'public' }
  | { kind: 'protected'; scope: Scope | null; roles: readonly Role[]; write: boolean; permission?: string }

/** The roles that match a scope when a route does not list its own. */
const rolesForScope: Record<Scope, readonly Role[]> = {
  read: roles,
  send: ['operator', 'superadmin'],
  admin: ['superadmin'],
}

export const access = {
  public: (): RouteAccess => ({ kind: 'public' }),
  /** A read open to `scope` and, by default, the roles that scope stands for. */
  read: (scope: Scope, allowedRoles: readonly Role[] = rolesForScope[scope]): RouteAccess => ({
    kind: 'protected',
    scope,
    roles: allowedRoles,
    write: false,
  }),
  /** A write: also refused while the license is withdrawn. */
  write: (scope: Scope | null, allowedRoles: readonly Role[] = scope ? rolesForScope[scope] : ['superadmin']): RouteAccess => ({
    kind: 'protected',
    scope,
    roles: allowedRoles,
    write: true,
  }),
}

/** The authenticated party of a request: an integration's API key or a dashboard account. */
export type Caller =
  | { type: 'api_key'; id: string; scope: Scope; name?: string }
  | { type: 'session'; id: string; role: Role; name?: string }

export type ProtectedAccess = Extract<RouteAccess, { kind: 'protected' }>

/**
 * Identifies the caller of a protected route and checks it may use it, or throws the refusal
 * (MISSING_API_KEY, INVALID_API_KEY, FORBIDDEN_SCOPE; in the auth module also IP_NOT_ALLOWED,
 * RATE_LIMITED, LICENSE_BLOCKED). The auth module binds the real one; without it no credential
 * can exist, and the core one says so.
 */
export abstract class AccessGuard {
  abstract authorize(ctx: HttpContext, routeAccess: ProtectedAccess): Promise<Caller>
}

export class NoCredentialsGuard extends AccessGuard {
  async authorize(ctx: HttpContext): Promise<Caller> {
    if (!ctx.request.header('x-api-key')) {
      throw new ApiError('MISSING_API_KEY', 'Send an API key in the X-API-KEY header')
    }
    throw new ApiError('INVALID_API_KEY', 'The API key is unknown or revoked')
  }
}

export function scopeCovers(granted: Scope, required: Scope): boolean {
  return scopes.indexOf(granted) >= scopes.indexOf(required)
}

/** Checks an identified caller against a route's access rule. */
export function assertAllowed(caller: Caller, routeAccess: ProtectedAccess): void {
  if (caller.type === 'api_key') {
    if (routeAccess.scope === null) {
      throw new ApiError('FORBIDDEN_SCOPE', 'This operation needs a signed-in dashboard account; no API key may do it', {
        requiredScope: null,
        requiredRoles: routeAccess.roles,
      })
    }
    if (!scopeCovers(caller.scope, routeAccess.scope)) {
      throw new ApiError('FORBIDDEN_SCOPE', `This operation needs the ${routeAccess.scope} scope`, {
        requiredScope: routeAccess.scope,
      })
    }
    return
  }
  if (!routeAccess.roles.includes(caller.role)) {
    throw new ApiError('FORBIDDEN_SCOPE', 'Your account role does not allow this operation', {
      requiredRoles: routeAccess.roles,
    })
  }
}

declare module '@adonisjs/core/http' {
  interface HttpContext {
    /** Set on protected routes once the caller is identified and allowed. */
    caller?: Caller
  }
}
