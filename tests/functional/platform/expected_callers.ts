import type { Role, Scope } from '#core/http/access'

/**
 * Who may call core's routes added since the hand-written table of
 * tests/functional/auth/permission_matrix.spec.ts, written by hand from the docs (docs/api-conventions.md,
 * Authentication; the Activity log is read with the read scope by every dashboard role), not
 * derived from core's permissions: the permission matrix reads this file and checks the
 * permissions and the router against it.
 */
export default {
  'GET /api/v1/activity/vocabulary': ['key:read', 'key:send', 'key:admin', 'session:readonly', 'session:operator', 'session:superadmin'],
} satisfies Record<string, Array<`key:${Scope}` | `session:${Role}`>>
