import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'

/** A row of `contact_imports` as the table holds it (JSON columns as text). */
export type ImportRow = any

/** What an upload stores before anyone maps its columns. */
export interface NewUpload {
  fileName: string
  storedFile: string
  delimiter: string
  /** JSON. */
  columns: string
  sample: string
  suggestedMapping: string
  totalRows: number
  /** ISO 8601. */
  at: string
}

/** What a chunk's transaction adds to an import's counts. */
export interface ChunkCounts {
  processedRows: number
  created: number
  updated: number
  merged: number
  invalid: number
}

/**
 * The `contact_imports` and `contact_import_errors` tables (docs/modules.md, Data access): the
 * query builder, each status change guarded by the status it moves from; SQL text for the rows a
 * chunk refuses, many in one statement (through `json_each`), and for its counts, added to the
 * stored ones.
 */
export class ImportStore {
  /** Answers the new import's id. */
  async addUpload(upload: NewUpload): Promise<number> {
    const [row] = await db
      .table('contact_imports')
      .insert({
        status: 'awaiting_mapping',
        file_name: upload.fileName,
        stored_file: upload.storedFile,
        delimiter: upload.delimiter,
        columns: upload.columns,
        sample: upload.sample,
        suggested_mapping: upload.suggestedMapping,
        total_rows: upload.totalRows,
        created_at: upload.at,
        updated_at: upload.at,
      })
      .returning('id')
    return typeof row === 'object' ? row.id : row
  }

  async find(id: number): Promise<ImportRow | null> {
    return db.from('contact_imports').where('id', id).first()
  }

  /** Awaiting its mapping → running, with what it was started with; false when it had left that status. */
  async start(id: number, fields: { mapping: string; groupId: number | null; columns: string; sample: string; suggestedMapping: string; at: string }): Promise<boolean> {
    const moved = await db.from('contact_imports').where('id', id).where('status', 'awaiting_mapping').update({
      status: 'running',
      mapping: fields.mapping,
      group_id: fields.groupId,
      columns: fields.columns,
      sample: fields.sample,
      suggested_mapping: fields.suggestedMapping,
      started_at: fields.at,
      updated_at: fields.at,
    })
    return Boolean(moved)
  }

  /** Up to `limit` imports, newest first, before `before` (a cursor's position). */
  async newestFirst(limit: number, before: { createdAt: string | number; id: number } | null): Promise<ImportRow[]> {
    const query = db.from('contact_imports').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit)
    if (before) query.whereRaw('(created_at, id) < (?, ?)', [before.createdAt, before.id])
    return query
  }

  /** Up to `limit` rows refused, in file order, after line `afterRow`. */
  async errorsAfter(importId: number, afterRow: number, limit: number): Promise<Array<{ row: number; reason: string }>> {
    return db.from('contact_import_errors').where('import_id', importId).where('row', '>', afterRow).orderBy('row', 'asc').limit(limit)
  }

  /** The uploads awaiting their mapping created at or before `before` (ISO 8601). */
  async unstartedSince(before: string): Promise<Array<{ id: number; stored_file: string | null }>> {
    return db.from('contact_imports').where('status', 'awaiting_mapping').where('created_at', '<=', before).select('id', 'stored_file')
  }

  /** An upload never started ends `failed`, its file forgotten; false when it had been started meanwhile. */
  async dropUnstarted(id: number, reason: string, at: string): Promise<boolean> {
    const dropped = await db
      .from('contact_imports')
      .where('id', id)
      .where('status', 'awaiting_mapping')
      .update({ status: 'failed', error: reason, stored_file: null, finished_at: at, updated_at: at })
    return Boolean(dropped)
  }

  /** When the oldest upload awaiting its mapping was made (ISO 8601); null when none waits. */
  async oldestUnstarted(): Promise<string | null> {
    const next = await db.from('contact_imports').where('status', 'awaiting_mapping').orderBy('created_at', 'asc').select('created_at').first()
    return next ? next.created_at : null
  }

  /** The oldest running import's id. */
  async nextRunning(): Promise<number | null> {
    const row = await db.from('contact_imports').where('status', 'running').orderBy('id', 'asc').select('id').first()
    return row?.id ?? null
  }

  /** Running → completed or failed, its file forgotten. */
  async finish(id: number, status: 'completed' | 'failed', reason: string | null, at: string): Promise<void> {
    await db.from('contact_imports').where('id', id).where('status', 'running').update({ status, error: reason, finished_at: at, updated_at: at, stored_file: null })
  }

  /**
   * Takes the chunk after `done` rows in the caller's transaction; false when another pass wrote
   * it already (its count moved on) or the import stopped running.
   */
  async claimChunk(trx: TransactionClientContract, id: number, done: number, at: string): Promise<boolean> {
    const progress = await trx.from('contact_imports').where('id', id).where('processed_rows', done).where('status', 'running').update({ updated_at: at })
    return Boolean(progress)
  }

  /** Rows refused, by line. */
  async addErrors(trx: TransactionClientContract, importId: number, refused: Array<{ row: number; reason: string }>): Promise<void> {
    await trx.rawQuery(`INSERT OR IGNORE INTO contact_import_errors (import_id, row, reason) SELECT ?, json_extract(value, '$.row'), json_extract(value, '$.reason') FROM json_each(?)`, [
      importId,
      JSON.stringify(refused),
    ])
  }

  /** How far the import got, and what the chunk added to its counts. */
  async recordChunk(trx: TransactionClientContract, id: number, counts: ChunkCounts, at: string): Promise<void> {
    await trx.rawQuery(
      `UPDATE contact_imports SET processed_rows = ?, created = created + ?, updated = updated + ?, merged = merged + ?,
         invalid = invalid + ?, updated_at = ? WHERE id = ?`,
      [counts.processedRows, counts.created, counts.updated, counts.merged, counts.invalid, at, id]
    )
  }
}
