import { access } from '#core/http/access'
import { definePermissions } from '#core/http/permissions'

/** Reading the license is an administrator's; entering a key a superadmin's, in a session. */
export const licensePermissions = definePermissions({
  'license.read': access.read('admin', ['superadmin']),
  // Entering a license key must work while the license is withdrawn: not gated.
  'license.change': { kind: 'protected', scope: null, roles: ['superadmin'], write: false },
})
