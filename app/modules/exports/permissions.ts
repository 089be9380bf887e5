import { access } from '#core/http/access'
import { definePermissions } from '#core/http/permissions'

/** Data exports for every role (admin key); the database for the superadmin only (docs/exports.md). */
export const exportPermissions = definePermissions({
  'exports.data': access.read('admin', ['readonly', 'operator', 'superadmin']),
  'exports.database': access.read('admin', ['superadmin']),
})
