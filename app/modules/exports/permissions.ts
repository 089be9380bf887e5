import { access } from '#core/http/access'
import { definePermissions } from '#core/http/permissions'

/** Spec, Roles: data exports for every role (admin key); the database for the superadmin only. */
export const exportPermissions = definePermissions({
  'exports.data': access.read('admin', ['readonly', 'operator', 'superadmin']),
  'exports.database': access.read('admin', ['superadmin']),
})
