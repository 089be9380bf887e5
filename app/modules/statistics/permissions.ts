import { access } from '#core/http/access'
import { definePermissions } from '#core/http/permissions'

/** The read scope reads statistics, and so does every dashboard role (docs/statistics.md). */
export const statisticsPermissions = definePermissions({
  'statistics.read': access.read('read'),
})
