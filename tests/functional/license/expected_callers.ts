import type { Role, Scope } from '#core/http/access'

/**
 * Who may call the license module's protected routes, written by hand from docs/license.md (an
 * administrator reads the state; a superadmin, in a session, enters a key), not derived from its
 * permissions: the permission matrix reads this file and checks the permissions and the router
 * against it.
 */
export default {
  'GET /api/v1/license': ['key:admin', 'session:superadmin'],
  'PUT /api/v1/license': ['session:superadmin'],
} satisfies Record<string, Array<`key:${Scope}` | `session:${Role}`>>
