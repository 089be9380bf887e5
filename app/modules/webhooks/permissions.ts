import { access } from '#core/http/access'
import { definePermissions } from '#core/http/permissions'

/** Spec, Roles: every role sees webhooks and deliveries; operators and superadmins change and replay. */
export const webhookPermissions = definePermissions({
  'webhooks.read': access.read('read'),
  'webhooks.change': access.write('admin', ['operator', 'superadmin']),
  'deliveries.replay': access.write('admin', ['operator', 'superadmin']),
})
