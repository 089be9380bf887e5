import { access } from '#core/http/access'
import { definePermissions } from '#core/http/permissions'

/**
 * Read scope reads; send scope sends and retries (operators send); deleting a message is
 * configuration (admin). Exports of messages are open to every dashboard role (docs/exports.md).
 * Conversations, contacts and short links have their own (the conversations, contacts and links
 * modules).
 */
export const messagePermissions = definePermissions({
  'messages.read': access.read('read'),
  'messages.send': access.write('send', ['operator', 'superadmin']),
  'messages.delete': access.write('admin', ['operator', 'superadmin']),
})
