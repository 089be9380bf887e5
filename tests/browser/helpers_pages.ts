import app from '@adonisjs/core/services/app'
import type { Role } from '#core/http/access'
import { dashboardPages } from '#tests/unit/dashboard/dashboard_pages'
import { gatewayUrl } from './browser.js'

/**
 * The dashboard's pages as its router knows them, in menu order: every page folder's pages.ts
 * (dashboard/src/pages/<folder>/pages.ts, read as text: they are the browser app's modules, not
 * the server's), so a page added there is walked without editing the tests. An optional
 * parameter (`settings/:section?`) is left out: the page opens on its first part.
 */
export function walkedPages() {
  return dashboardPages(app.makePath()).map((entry) => ({ ...entry, path: entry.path.replace(/\/:[^/]+\?/g, '') }))
}
export type WalkedPage = ReturnType<typeof walkedPages>[number]

/** Which roles may call each operation, from the gateway's own OpenAPI document (`x-roles`). */
export async function rolesOfOperations(): Promise<Map<string, string[]>> {
  const document = (await (await fetch(gatewayUrl('/api-docs/openapi.json'))).json()) as {
    paths: Record<string, Record<string, { operationId?: string; 'x-roles'?: string[] }>>
  }
  const roles = new Map<string, string[]>()
  for (const operations of Object.values(document.paths)) {
    for (const operation of Object.values(operations)) {
      if (operation.operationId) roles.set(operation.operationId, operation['x-roles'] ?? [])
    }
  }
  return roles
}

/** The pages a role may open: those whose operation its `x-roles` allow. */
export async function pagesOfRole(role: Role): Promise<WalkedPage[]> {
  const operations = await rolesOfOperations()
  return walkedPages().filter((entry) => {
    const roles = operations.get(entry.needs)
    if (!roles) throw new Error(`The operation ${entry.needs} of page ${entry.name} is not in the OpenAPI document`)
    return roles.includes(role)
  })
}
