import { access } from '#core/http/access'
import { definePermissions } from '#core/http/permissions'

/**
 * Contacts, their groups and imports are read with read scope and changed with admin (operators
 * change them). Exports of contacts are the exports module's (docs/exports.md).
 */
export const contactPermissions = definePermissions({
  'contacts.read': access.read('read'),
  'contacts.change': access.write('admin', ['operator', 'superadmin']),
  // Groups are contact data: read with read, changed with admin, like contacts.
  'groups.read': access.read('read'),
  'groups.change': access.write('admin', ['operator', 'superadmin']),
})
