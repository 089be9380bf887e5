import db from '@adonisjs/lucid/services/db'
import { decodeCursor, encodeCursor, DEFAULT_PAGE_SIZE, type PageRequest } from '#core/pagination/keyset_page'
import type { BackupAttempt } from '#modules/backups/services/backup_engine'
import type { PageOf } from '#core/contract/schemas'
import type { backupAttemptSchema } from '#modules/backups/schemas'

export function attemptOf(row: any): BackupAttempt {
  return {
    id: String(row.id),
    name: row.name,
    origin: row.origin,
    outcome: row.outcome,
    reason: row.reason,
    size: row.size === null ? null : Number(row.size),
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  }
}

/** GET /backups/attempts: every attempt, failures included, newest first, in cursor pages. */
export async function listAttempts(page: PageRequest): Promise<PageOf<typeof backupAttemptSchema>> {
  const limit = page.limit ?? DEFAULT_PAGE_SIZE
  const query = db.from('backup_attempts').orderBy('started_at', 'desc').orderBy('id', 'desc').limit(limit + 1)
  if (page.cursor) {
    const after = decodeCursor(page.cursor)
    query.whereRaw('(started_at, id) < (?, ?)', [after.sortValue, after.id])
  }
  const rows = await query
  const data = rows.slice(0, limit)
  const last = data.at(-1)
  return {
    data: data.map(attemptOf),
    nextCursor: rows.length > limit && last ? encodeCursor({ sortValue: last.started_at, id: last.id }) : null,
  }
}
