import { access } from '#core/http/access'
import { definePermissions } from '#core/http/permissions'

export const devicePermissions = definePermissions({
  'devices.read': access.read('read'),
  'devices.pair': access.write('admin', ['operator', 'superadmin']),
  'devices.change': access.write('admin', ['operator', 'superadmin']),
})
