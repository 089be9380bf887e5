/**
 * Why SQLite refused a statement, when the refusal is the machine's condition rather than a
 * fault of the gateway: `full` (SQLITE_FULL: the data folder's disk has no room; the
 * transaction was rolled back) or `locked` (SQLITE_BUSY / SQLITE_LOCKED: another program, such
 * as an operator's `sqlite3` shell or a copy tool, holds the write lock past the busy timeout).
 * Both pass by themselves; the caller may try again later.
 */
export type DatabaseRefusal = 'full' | 'locked'

export function databaseRefusal(error: unknown): DatabaseRefusal | null {
  const code = (error as { code?: unknown } | null)?.code
  if (code === 'SQLITE_FULL') return 'full'
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return 'locked'
  return null
}
