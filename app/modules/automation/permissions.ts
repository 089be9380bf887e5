import { access } from '#core/http/access'
import { definePermissions } from '#core/http/permissions'

/** Spec, Scopes: rules are read with read and changed with admin; operators change them too. */
export const automationPermissions = definePermissions({
  'rules.read': access.read('read'),
  'rules.change': access.write('admin', ['operator', 'superadmin']),
})
