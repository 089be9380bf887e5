import { access, type RouteAccess } from '#core/http/access'

/**
 * The one permission table: every route contract takes its access rule from here, so who may
 * do what reads in one place (spec, Scopes and Roles; the access issue's role rules).
 *
 * - API keys: scopes are ordered read < send < admin; `null` is refused to every key.
 * - Dashboard roles: readonly reads and exports messages, contacts and conversations; operator
 *   also sends, changes webhooks and replays deliveries; superadmin does everything, including
 *   accounts, keys, backups and the database export.
 * - A `write` is refused while the license is withdrawn.
 */
export const permissions = {
  // Platform
  'activity.read': access.read('read'),
  'settings.read': access.read('admin', ['operator', 'superadmin']),
  'settings.change': access.write('admin', ['superadmin']),
  'technicalLog.read': access.read('admin', ['superadmin']),

  // Accounts and keys: account changes need a signed-in superadmin, never a key.
  'caller.read': access.read('read'),
  'users.read': access.read('admin', ['superadmin']),
  'users.change': access.write(null, ['superadmin']),
  'apiKeys.read': access.read('admin', ['superadmin']),
  'apiKeys.change': access.write(null, ['superadmin']),
  'license.read': access.read('admin', ['superadmin']),
  // Entering a license key must work while the license is withdrawn: not gated.
  'license.change': { kind: 'protected', scope: null, roles: ['superadmin'], write: false },

  // Messages, contacts, conversations (later modules)
  'messages.read': access.read('read'),
  'messages.send': access.write('send', ['operator', 'superadmin']),
  'messages.delete': access.write('admin', ['operator', 'superadmin']),
  'links.read': access.read('read'),
  'conversations.read': access.read('read'),
  'conversations.change': access.write('admin', ['operator', 'superadmin']),
  'contacts.read': access.read('read'),
  'contacts.change': access.write('admin', ['operator', 'superadmin']),
  'exports.data': access.read('admin', ['readonly', 'operator', 'superadmin']),
  'exports.database': access.read('admin', ['superadmin']),

  // Phones, webhooks, backups (later modules)
  'devices.read': access.read('read'),
  'devices.pair': access.write('admin', ['operator', 'superadmin']),
  'devices.change': access.write('admin', ['operator', 'superadmin']),
  'webhooks.read': access.read('read'),
  'webhooks.change': access.write('admin', ['operator', 'superadmin']),
  'deliveries.replay': access.write('admin', ['operator', 'superadmin']),
  'backups.read': access.read('admin', ['superadmin']),
  'backups.change': access.write('admin', ['superadmin']),
} as const satisfies Record<string, RouteAccess>

export type Permission = keyof typeof permissions
