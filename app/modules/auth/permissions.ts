import { access, roles } from '#core/http/access'
import { definePermissions } from '#core/http/permissions'

/** Accounts and keys: account changes need a signed-in superadmin, never a key. */
export const authPermissions = definePermissions({
  'caller.read': access.read('read'),
  'users.read': access.read('admin', ['superadmin']),
  // Names of who a conversation can be assigned to: anyone who reads conversations.
  'users.assignable': access.read('read'),
  'users.change': access.write(null, ['superadmin']),
  'apiKeys.read': access.read('admin', ['superadmin']),
  'apiKeys.change': access.write(null, ['superadmin']),
  // Every person's own account (own password, own other sessions): a signed-in person of any
  // role, never a key; not gated by the license, so people can still secure their account
  // while it is withdrawn.
  'ownAccount.change': { kind: 'protected', scope: null, roles, write: false },
})
