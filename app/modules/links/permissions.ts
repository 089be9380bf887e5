import { access } from '#core/http/access'
import { definePermissions } from '#core/http/permissions'

/** Read scope lists the short links with their clicks; following one (/l/{code}) is public. */
export const linkPermissions = definePermissions({
  'links.read': access.read('read'),
})
