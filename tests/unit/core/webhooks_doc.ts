/**
 * The event names of docs/webhooks.md's Events table: the first cell of each row, one name or
 * several joined by ` / ` (`backup.completed` / `backup.failed`).
 */
export function documentedEvents(markdown: string): string[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Events\n'))
  if (!section) throw new Error('docs/webhooks.md has no "## Events" section')
  const rows = section.split('\n').filter((line) => line.startsWith('|')).slice(2)
  return rows.flatMap((row) => [...row.split('|')[1].matchAll(/`([^`]+)`/g)].map((match) => match[1]))
}
