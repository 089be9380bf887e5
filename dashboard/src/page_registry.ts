import type { OperationId } from './api/operations'

/**
 * The menu's groups, in menu order. A page folder places its pages in one of them with an
 * `order` (10, 20, …; a page reached from another one, `menu: false`, next to it: 51, 52).
 */
export const pageGroups = ['overview', 'messaging', 'phones', 'integrations', 'data', 'administration'] as const
export type PageGroup = (typeof pageGroups)[number]

/** Each group's heading in the menu; the overview's pages stand on top without one. */
export const pageGroupTitles: Record<PageGroup, string | null> = {
  overview: null,
  messaging: 'Messaging',
  phones: 'Phones',
  integrations: 'Integrations',
  data: 'Data',
  administration: 'Administration',
}

/**
 * One page of the signed-in dashboard. It is listed (and reachable) only for the roles that may
 * call the operation it reads (`needs`), from the gateway's own OpenAPI document. `menu: false`:
 * reached from another page (a campaign from the list, the wizard from its button), not from the
 * menu.
 */
export interface PageEntry {
  /** The route's name (`{ name: 'phones' }`), unique across the dashboard. */
  name: string
  /** Below `/`, without the leading slash; unique across the dashboard. */
  path: string
  /** The menu's label and the page's heading. */
  title: string
  needs: OperationId
  group: PageGroup
  order: number
  menu?: false
  load: () => Promise<unknown>
}

/**
 * A page folder's pages (dashboard/src/pages/<folder>/pages.ts exports `pages = definePages([...])`);
 * dashboard/src/pages.ts gathers every folder's.
 */
export function definePages<const Entries extends ReadonlyArray<PageEntry>>(entries: Entries): Entries {
  return entries
}

/** Every folder's pages in menu order: by group, then order. Two pages of one name or path are a mistake. */
export function inMenuOrder(entries: ReadonlyArray<PageEntry>): PageEntry[] {
  const seen = new Map<string, string>()
  for (const entry of entries) {
    for (const key of [`name ${entry.name}`, `path /${entry.path}`]) {
      if (seen.has(key)) throw new Error(`Two dashboard pages have the ${key}: ${seen.get(key)} and ${entry.title}`)
      seen.set(key, entry.title)
    }
  }
  const rank = (entry: PageEntry) => pageGroups.indexOf(entry.group)
  return [...entries].sort((a, b) => rank(a) - rank(b) || a.order - b.order)
}
