import type { Role, Scope } from '#core/http/access'

/**
 * Who may call the message_bulk module's routes, written by hand from the docs (docs/sending.md,
 * Many messages at once: whoever may delete or retry one message may do it to many, and no one
 * else), not derived from its permissions: the permission matrix reads this file and checks the
 * permissions and the router against it.
 */
export default {
  'POST /api/v1/messages/bulk-delete': ['key:admin', 'session:operator', 'session:superadmin'],
  'POST /api/v1/messages/bulk-retry': ['key:send', 'key:admin', 'session:operator', 'session:superadmin'],
} satisfies Record<string, Array<`key:${Scope}` | `session:${Role}`>>
