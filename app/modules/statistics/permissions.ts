import { access } from '#core/http/access'
import { definePermissions } from '#core/http/permissions'

/** Spec, Scopes: the read scope reads statistics, and so does every dashboard role. */
export const statisticsPermissions = definePermissions({
  'statistics.read': access.read('read'),
})
