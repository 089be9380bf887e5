import { access } from '#core/http/access'
import { definePermissions } from '#core/http/permissions'

/**
 * Campaigns are read with the read scope; templates and campaigns are changed
 * with admin. In the dashboard operators and superadmins change them, read-only accounts read.
 */
export const campaignPermissions = definePermissions({
  'campaigns.read': access.read('read'),
  'campaigns.change': access.write('admin', ['operator', 'superadmin']),
  'templates.read': access.read('read'),
  'templates.change': access.write('admin', ['operator', 'superadmin']),
})
