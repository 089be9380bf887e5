import { access } from '#core/http/access'
import { definePermissions } from '#core/http/permissions'

/**
 * Conversations are read with read scope (a conversation's messages too, a route of the messages
 * module); pinning, archiving, assigning and marking read is configuration (admin; operators
 * change them). Their export is the exports module's (docs/exports.md).
 */
export const conversationPermissions = definePermissions({
  'conversations.read': access.read('read'),
  'conversations.change': access.write('admin', ['operator', 'superadmin']),
})
