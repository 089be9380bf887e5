import db from '@adonisjs/lucid/services/db'
import { decodeCursor, encodeCursor, DEFAULT_PAGE_SIZE, type PageRequest } from '#core/pagination/keyset_page'
import type { PageOf } from '#core/contract/schemas'
import type { BackupAttempt, backupAttemptSchema } from '#modules/backups/schemas'

/**
 * The `backup_attempts` table, the journal of every backup attempt, through the query builder
 * (docs/modules.md, Data access).
 */
export class BackupAttemptStore {
  /** Every attempt, failures included, newest first, in cursor pages. */
  async page(page: PageRequest): Promise<PageOf<typeof backupAttemptSchema>> {
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

  /** Journals a finished attempt; answers its id. */
  async add(attempt: Omit<BackupAttempt, 'id'>): Promise<string> {
    const [inserted] = await db
      .table('backup_attempts')
      .insert({
        name: attempt.name,
        origin: attempt.origin,
        outcome: attempt.outcome,
        reason: attempt.reason,
        size: attempt.size,
        started_at: attempt.startedAt,
        finished_at: attempt.finishedAt,
      })
      .returning('id')
    return String(typeof inserted === 'object' ? inserted.id : inserted)
  }

  /** The successful attempts that wrote these files: who made each, and when it was finished. */
  async successesNamed(names: string[]): Promise<Array<{ name: string; origin: string; finished_at: string }>> {
    return db.from('backup_attempts').where('outcome', 'success').whereIn('name', names).select('name', 'origin', 'finished_at')
  }

  /** When the last automatic attempt, failed or not, started; null before the first. */
  async lastScheduledStart(): Promise<Date | null> {
    const last = await db.from('backup_attempts').where('origin', 'scheduled').orderBy('started_at', 'desc').select('started_at').first()
    return last ? new Date(last.started_at) : null
  }
}

function attemptOf(row: any): BackupAttempt {
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
