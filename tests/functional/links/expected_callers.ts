import type { Role, Scope } from '#core/http/access'

/**
 * Who may call the links module's protected routes, written by hand from the docs (the click
 * figures are read with the read scope by every dashboard role, docs/statistics.md), not derived
 * from its permissions: the permission matrix reads this file and checks the permissions and the
 * router against it.
 */
export default {
  'GET /api/v1/links': ['key:read', 'key:send', 'key:admin', 'session:readonly', 'session:operator', 'session:superadmin'],
} satisfies Record<string, Array<`key:${Scope}` | `session:${Role}`>>
