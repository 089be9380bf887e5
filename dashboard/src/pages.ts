import { inMenuOrder, type PageEntry } from './page_registry'

/**
 * The pages of the signed-in dashboard, in menu order, gathered from every page folder's
 * `pages.ts` (dashboard/src/pages/<folder>/pages.ts, `definePages`): a new module's folder
 * brings its own pages, with their group and order in the menu (page_registry.ts). The router
 * and the menu read this list.
 */
const folders = import.meta.glob<ReadonlyArray<PageEntry>>('./pages/*/pages.ts', { eager: true, import: 'pages' })

export const pages: ReadonlyArray<PageEntry> = inMenuOrder(Object.values(folders).flat())
