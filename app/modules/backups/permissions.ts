import { access } from '#core/http/access'
import { definePermissions } from '#core/http/permissions'

/** Backups contain dashboard accounts, so they are the superadmin's (or an admin key's). */
export const backupPermissions = definePermissions({
  'backups.read': access.read('admin', ['superadmin']),
  'backups.change': access.write('admin', ['superadmin']),
})
