import type { Role, Scope } from '#core/http/access'

const readers: Array<`key:${Scope}` | `session:${Role}`> = ['key:read', 'key:send', 'key:admin', 'session:readonly', 'session:operator', 'session:superadmin']
const adminOrOperator: Array<`key:${Scope}` | `session:${Role}`> = ['key:admin', 'session:operator', 'session:superadmin']

/**
 * Who may call the contact imports module's protected routes, written by hand from the docs (an
 * import is contact data: read with the read scope by every dashboard role, started with an admin
 * key or by an operator, docs/campaigns.md), not derived from its permissions: the permission
 * matrix reads this file and checks the permissions and the router against it.
 */
export default {
  'POST /api/v1/contacts/imports': adminOrOperator,
  'POST /api/v1/contacts/imports/:id/start': adminOrOperator,
  'GET /api/v1/contacts/imports': readers,
  'GET /api/v1/contacts/imports/:id': readers,
  'GET /api/v1/contacts/imports/:id/errors': readers,
} satisfies Record<string, Array<`key:${Scope}` | `session:${Role}`>>
