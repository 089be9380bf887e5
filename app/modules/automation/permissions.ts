import { access } from '#core/http/access'
import { definePermissions } from '#core/http/permissions'

/** Rules are read with read and changed with admin; operators change them too (docs/automation.md). */
export const automationPermissions = definePermissions({
  'rules.read': access.read('read'),
  'rules.change': access.write('admin', ['operator', 'superadmin']),
})
