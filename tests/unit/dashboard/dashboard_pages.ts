import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

/** One page of the dashboard as its folder's pages.ts declares it. */
export interface DashboardPage {
  name: string
  path: string
  title: string
  needs: string
  group: string
  order: number
  /** Listed in the menu (false: reached from another page). */
  inMenu: boolean
  /** The page folder (dashboard/src/pages/<folder>/) and the component file it loads. */
  folder: string
  file: string
}

/** The menu's groups in order, as dashboard/src/page_registry.ts lists them. */
export function pageGroups(root: string): string[] {
  const source = readFileSync(join(root, 'dashboard', 'src', 'page_registry.ts'), 'utf8')
  const list = /export const pageGroups = \[([^\]]*)\]/.exec(source)
  if (!list) throw new Error('dashboard/src/page_registry.ts: no pageGroups list')
  return [...list[1].matchAll(/'([^']+)'/g)].map(([, group]) => group)
}

/**
 * The dashboard's pages as its router and menu know them, in menu order: every page folder's
 * pages.ts (dashboard/src/pages/<folder>/pages.ts) read as text (they are the browser app's
 * modules, not the server's), sorted as dashboard/src/page_registry.ts sorts them (by group,
 * then order). A page added in a folder is found without editing the tests that read this.
 */
export function dashboardPages(root: string): DashboardPage[] {
  const pagesFolder = join(root, 'dashboard', 'src', 'pages')
  const entry =
    /\{\s*name: '([^']+)',\s*path: '([^']*)',\s*title: '([^']+)',\s*needs: '([^']+)',\s*group: '([^']+)',\s*order: (\d+)(,\s*menu: false)?,\s*load: \(\) => import\('\.\/([^']+)'\)/g
  const found: DashboardPage[] = []
  for (const folder of readdirSync(pagesFolder, { withFileTypes: true })) {
    const file = join(pagesFolder, folder.name, 'pages.ts')
    if (!folder.isDirectory() || !existsSync(file)) continue
    for (const [, name, path, title, needs, group, order, hidden, loaded] of readFileSync(file, 'utf8').matchAll(entry)) {
      found.push({ name, path, title, needs, group, order: Number(order), inMenu: !hidden, folder: folder.name, file: loaded })
    }
  }
  const groups = pageGroups(root)
  return found.sort((a, b) => groups.indexOf(a.group) - groups.indexOf(b.group) || a.order - b.order)
}
