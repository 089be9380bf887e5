import { access } from '#core/http/access'
import { definePermissions } from '#core/http/permissions'

/**
 * Read scope reads; send scope sends and retries (operators send); deleting a message and
 * changing conversations is configuration (admin). Exports of messages and conversations are
 * open to every dashboard role (docs/exports.md). Contacts and short links have their own (the
 * contacts and links modules).
 */
export const messagePermissions = definePermissions({
  'messages.read': access.read('read'),
  'messages.send': access.write('send', ['operator', 'superadmin']),
  'messages.delete': access.write('admin', ['operator', 'superadmin']),
  'conversations.read': access.read('read'),
  'conversations.change': access.write('admin', ['operator', 'superadmin']),
})
