/** What the menu knows of a page (a `PageEntry` of page_registry.ts). */
interface MenuPage {
  name: string
  path: string
  group: string
  menu?: false
}

/**
 * The menu entry a page stands under: itself when it is in the menu, else the menu page of its
 * group whose path is its first segment (`campaigns/:id` under Campaigns, `contacts/import`
 * under Contacts).
 */
export function menuEntryOf<Page extends MenuPage>(entry: Page, entries: ReadonlyArray<Page>): Page | undefined {
  if (entry.menu !== false) return entry
  const first = entry.path.split('/')[0]
  return entries.find((candidate) => candidate.menu !== false && candidate.group === entry.group && candidate.path.split('/')[0] === first)
}
