import { access } from '#core/http/access'
import { definePermissions } from '#core/http/permissions'

/**
 * Every role sees webhooks and deliveries; operators and superadmins change and replay
 * (docs/webhooks.md).
 */
export const webhookPermissions = definePermissions({
  'webhooks.read': access.read('read'),
  'webhooks.change': access.write('admin', ['operator', 'superadmin']),
  'deliveries.replay': access.write('admin', ['operator', 'superadmin']),
})
