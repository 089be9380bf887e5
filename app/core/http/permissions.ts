import { access, type RouteAccess } from '#core/http/access'

/**
 * Named access rules. Each module declares its own in its `permissions.ts` with
 * `definePermissions` and registers them from its provider; its route contracts take their
 * `access` from there, so who may do what reads in one place per module, and the OpenAPI
 * document names the permission of each operation (`x-permission`) beside its scope and roles.
 *
 * - API keys: scopes are ordered read < send < admin; `null` is refused to every key.
 * - Dashboard roles: readonly reads and exports messages, contacts and conversations; operator
 *   also sends, changes webhooks and replays deliveries; superadmin does everything, including
 *   accounts, keys, backups and the database export.
 * - A `write` is refused while the license is withdrawn.
 */
export function definePermissions<Name extends string>(table: Record<Name, RouteAccess>): Record<Name, RouteAccess> {
  return Object.fromEntries(
    Object.entries<RouteAccess>(table).map(([name, rule]) => [name, rule.kind === 'protected' ? { ...rule, permission: name } : rule])
  ) as Record<Name, RouteAccess>
}

/** Every permission of the running gateway, for the reference and the permission matrix test. */
class PermissionCatalogue {
  readonly #rules = new Map<string, RouteAccess>()

  add(table: Record<string, RouteAccess>): void {
    for (const [name, rule] of Object.entries(table)) {
      if (this.#rules.has(name)) throw new Error(`Permission ${name} is defined twice`)
      this.#rules.set(name, rule)
    }
  }

  entries(): Array<[string, RouteAccess]> {
    return [...this.#rules]
  }
}

export const permissionCatalogue = new PermissionCatalogue()

/** The platform's own: activity, settings, the technical log. */
export const corePermissions = definePermissions({
  'activity.read': access.read('read'),
  'settings.read': access.read('admin', ['operator', 'superadmin']),
  'settings.change': access.write('admin', ['superadmin']),
  'technicalLog.read': access.read('admin', ['superadmin']),
})
permissionCatalogue.add(corePermissions)
