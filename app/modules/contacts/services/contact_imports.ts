import { inject } from '@adonisjs/core'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import vine from '@vinejs/vine'
import { randomUUID } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { Transform, type Readable } from 'node:stream'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { DataFolder } from '#core/data_folder/data_folder'
import { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { SettingsStore } from '#core/settings/settings_store'
import { decodeCursor, encodeCursor, DEFAULT_PAGE_SIZE, type PageRequest } from '#core/pagination/keyset_page'
import { MAX_FIELDS, MAX_FIELD_VALUE } from '#modules/contacts/validators/contact_validators'
import {
  ImportFileProblem,
  MAX_IMPORT_BYTES,
  importRows,
  readImportFileStart,
  summarizeImportFile,
  type ImportFileReading,
  type ImportRow,
} from '#modules/contacts/services/contact_import_file'
import { checkMapping, suggestMapping, type ImportMapping } from '#modules/contacts/services/contact_import_mapping'
import { IMPORT_ENCODINGS, type ImportEncoding } from '#modules/contacts/services/contact_import_encoding'
import type { PageOf } from '#core/contract/schemas'
import type { ContactImportResource, ImportErrorPage, contactImportSchema } from '#modules/contacts/schemas'
import { transaction } from '#core/database/transaction'
import { ConversationBook } from '#modules/conversations/public'

/** Rows written by one transaction: a restart loses at most this much work, never half of it. */
export const IMPORT_CHUNK = 1000
/** An upload nobody maps in this long is dropped, file included: the data folder does not fill up. */
export const UNSTARTED_UPLOAD_KEPT_MS = 24 * 3600_000

export type ImportStatus = 'awaiting_mapping' | 'running' | 'completed' | 'failed'

const emailRule = vine.compile(vine.object({ email: vine.string().email() }))
const LIMITS = { firstName: 100, lastName: 100, company: 200, email: 254 } as const
const LABELS = { firstName: 'first name', lastName: 'last name', company: 'company', email: 'e-mail' } as const

/** The header, first rows and suggested mapping as one encoding reads a file. */
type ImportPreview = ImportFileReading & { suggestedMapping: ImportMapping }

/**
 * What the `sample` column holds (JSON): the first rows, the encoding they and the columns were
 * read with, and while the upload waits for its mapping, the preview of every encoding. An
 * upload written before encodings were told apart holds the rows alone: it was read as UTF-8.
 */
interface StoredSample {
  encoding: ImportEncoding
  rows: string[][]
  previews: Record<ImportEncoding, ImportPreview> | null
}

function storedSample(row: { sample: string }): StoredSample {
  const stored = JSON.parse(row.sample) as StoredSample | string[][]
  return Array.isArray(stored) ? { encoding: 'utf-8', rows: stored, previews: null } : stored
}

function previewOf(reading: ImportFileReading): ImportPreview {
  return { ...reading, suggestedMapping: suggestMapping(reading.columns, reading.sample) }
}

/** A row turned into contact values, or the reason it cannot be. */
interface ContactValues {
  line: number
  phone: string
  firstName: string | null
  lastName: string | null
  company: string | null
  email: string | null
  tags: string[]
  fields: Record<string, string>
}

/**
 * Contacts imported from a CSV: the upload is kept in the data folder with its columns and a
 * sample until someone maps the columns; then the import job writes it chunk by chunk, each
 * chunk one transaction that also records how far it got. Numbers are completed with the local
 * prefix, a number twice in the file is one contact (later non-empty values win), an existing
 * contact is updated with the file's non-empty values (tags added, custom fields merged, the
 * opt-out never touched), and invalid rows are kept with their line and reason.
 */
@inject()
export class ContactImports {
  constructor(
    private clock: Clock,
    private phoneNumbers: PhoneNumbers,
    private settings: SettingsStore,
    private conversations: ConversationBook
  ) {}

  static get folder() {
    return join(DataFolder.current().root, 'imports')
  }

  /** Stores an uploaded file (streamed, never held in memory) and reads its columns. */
  async upload(fileName: string, content: Readable): Promise<ContactImportResource> {
    await mkdir(ContactImports.folder, { recursive: true, mode: 0o700 })
    const stored = `${randomUUID()}.csv`
    const path = join(ContactImports.folder, stored)
    let bytes = 0
    const sizeGuard = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length
        if (bytes > MAX_IMPORT_BYTES) return done(new ImportFileProblem('too large'))
        done(null, chunk)
      },
    })
    try {
      await pipeline(content, sizeGuard, createWriteStream(path, { mode: 0o600 }))
    } catch (error) {
      await rm(path, { force: true })
      if (error instanceof ImportFileProblem) {
        throw new ApiError('PAYLOAD_TOO_LARGE', 'The file is over 20 MiB: split it', { limitBytes: MAX_IMPORT_BYTES })
      }
      throw error
    }
    let summary
    try {
      summary = await summarizeImportFile(path)
    } catch (error) {
      await rm(path, { force: true })
      if (error instanceof ImportFileProblem) throw ApiError.validation('file', 'csv', error.message)
      throw error
    }
    const now = this.clock.now().toISOString()
    const previews = {} as Record<ImportEncoding, ImportPreview>
    for (const encoding of IMPORT_ENCODINGS) previews[encoding] = previewOf(summary.readings[encoding])
    const detected = previews[summary.encoding]
    const sample: StoredSample = { encoding: summary.encoding, rows: detected.sample, previews }
    const [row] = await db
      .table('contact_imports')
      .insert({
        status: 'awaiting_mapping',
        file_name: fileName.slice(0, 255),
        stored_file: stored,
        delimiter: summary.delimiter,
        columns: JSON.stringify(detected.columns),
        sample: JSON.stringify(sample),
        suggested_mapping: JSON.stringify(detected.suggestedMapping),
        total_rows: summary.totalRows,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
    await emitter.emit('contacts:import_uploaded', { id: typeof row === 'object' ? row.id : row })
    return this.find(typeof row === 'object' ? row.id : row)
  }

  /**
   * Maps the columns and starts the import (the job writes it), reading the file with `encoding`
   * (the one detected at upload unless told): the mapping names the columns as it reads them.
   */
  async start(id: number, mapping: ImportMapping, groupId: number | null, encoding?: ImportEncoding): Promise<ContactImportResource> {
    const current = await this.#row(id)
    if (current.status !== 'awaiting_mapping') throw new ApiError('IMPORT_ALREADY_STARTED', 'This import has already been started')
    const stored = storedSample(current)
    const chosen = encoding ?? stored.encoding
    const reading =
      chosen === stored.encoding
        ? { columns: JSON.parse(current.columns) as string[], sample: stored.rows, suggestedMapping: JSON.parse(current.suggested_mapping) as ImportMapping }
        : previewOf(await readImportFileStart(join(ContactImports.folder, current.stored_file), current.delimiter, chosen))
    checkMapping(mapping, reading.columns)
    if (groupId !== null && !(await db.from('contact_groups').where('id', groupId).first())) throw ApiError.notFound('Group')
    const now = this.clock.now().toISOString()
    // Once started, the file is read one way only: the previews go (they hold contacts' values).
    const sample: StoredSample = { encoding: chosen, rows: reading.sample, previews: null }
    const moved = await db
      .from('contact_imports')
      .where('id', id)
      .where('status', 'awaiting_mapping')
      .update({
        status: 'running',
        mapping: JSON.stringify(mapping),
        group_id: groupId,
        columns: JSON.stringify(reading.columns),
        sample: JSON.stringify(sample),
        suggested_mapping: JSON.stringify(reading.suggestedMapping),
        started_at: now,
        updated_at: now,
      })
    if (!moved) throw new ApiError('IMPORT_ALREADY_STARTED', 'This import has already been started')
    await emitter.emit('contacts:import_started', { id })
    return this.find(id)
  }

  async find(id: number): Promise<ContactImportResource> {
    return resource(await this.#row(id))
  }

  async list(page: PageRequest): Promise<PageOf<typeof contactImportSchema>> {
    const limit = page.limit ?? DEFAULT_PAGE_SIZE
    const query = db.from('contact_imports').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1)
    if (page.cursor) {
      const after = decodeCursor(page.cursor)
      query.whereRaw('(created_at, id) < (?, ?)', [after.sortValue, after.id])
    }
    const rows = await query
    const data = rows.slice(0, limit)
    const last = data.at(-1)
    return { data: data.map(resource), nextCursor: rows.length > limit && last ? encodeCursor({ sortValue: last.created_at, id: last.id }) : null }
  }

  /** The rows refused, in file order. */
  async errors(id: number, page: PageRequest): Promise<ImportErrorPage> {
    await this.#row(id)
    const limit = page.limit ?? DEFAULT_PAGE_SIZE
    const after = page.cursor ? Number(decodeCursor(page.cursor).id) : 0
    const rows = await db.from('contact_import_errors').where('import_id', id).where('row', '>', after).orderBy('row', 'asc').limit(limit + 1)
    const data = rows.slice(0, limit).map((row) => ({ row: row.row, reason: row.reason }))
    const last = data.at(-1)
    return { data, nextCursor: rows.length > limit && last ? encodeCursor({ sortValue: 0, id: last.row }) : null }
  }

  /**
   * Drops the files of uploads left unmapped for a day (the import ends `failed`, saying so);
   * answers when the next one left would be due, or null when none waits.
   */
  async dropUnstartedUploads(now: Date): Promise<Date | null> {
    const limit = new Date(now.getTime() - UNSTARTED_UPLOAD_KEPT_MS).toISOString()
    const stale = await db.from('contact_imports').where('status', 'awaiting_mapping').where('created_at', '<=', limit).select('id', 'stored_file')
    for (const row of stale) {
      const dropped = await db
        .from('contact_imports')
        .where('id', row.id)
        .where('status', 'awaiting_mapping')
        .update({ status: 'failed', error: 'Never started: the file was dropped after 24 hours', stored_file: null, finished_at: now.toISOString(), updated_at: now.toISOString() })
      if (dropped && row.stored_file) await rm(join(ContactImports.folder, row.stored_file), { force: true })
    }
    const next = await db.from('contact_imports').where('status', 'awaiting_mapping').orderBy('created_at', 'asc').select('created_at').first()
    return next ? new Date(Date.parse(next.created_at) + UNSTARTED_UPLOAD_KEPT_MS) : null
  }

  /** The import the job should work on, oldest first. */
  async nextRunning(): Promise<number | null> {
    const row = await db.from('contact_imports').where('status', 'running').orderBy('id', 'asc').select('id').first()
    return row?.id ?? null
  }

  /**
   * Writes an import from where its last committed chunk ended to the end of the file, one
   * transaction per chunk; `onChunk` hears each commit (progress); `interrupted` is asked after
   * each (the gateway stopping leaves the rest for its next start). A file that cannot be read
   * fails the import with a reason (its committed chunks stay).
   */
  async run(id: number, options: { onChunk?: () => void; interrupted?: () => boolean } = {}): Promise<void> {
    const onChunk = options.onChunk ?? (() => {})
    const interrupted = options.interrupted ?? (() => false)
    const current = await this.#row(id)
    if (current.status !== 'running') return
    const mapping: ImportMapping = JSON.parse(current.mapping)
    const columns: string[] = JSON.parse(current.columns)
    const { localPrefix } = await this.settings.get('reception')
    let done = current.processed_rows as number
    const { encoding } = storedSample(current)
    let chunk: ImportRow[] = []
    try {
      for await (const row of importRows(join(ContactImports.folder, current.stored_file), current.delimiter, done, encoding)) {
        chunk.push(row)
        if (chunk.length < IMPORT_CHUNK) continue
        done = await this.#writeChunk(current, chunk, done, mapping, columns, localPrefix)
        chunk = []
        onChunk()
        // The gateway is stopping: the rest waits for the next start (resumed from `done`).
        if (interrupted()) return
      }
      if (chunk.length) {
        done = await this.#writeChunk(current, chunk, done, mapping, columns, localPrefix)
        onChunk()
      }
      await this.#finish(id, 'completed', null)
    } catch (error) {
      if (error instanceof ChunkAlreadyWritten) return
      await this.#finish(id, 'failed', 'The file could not be read to the end; the rows before stay imported')
      throw error
    }
  }

  async #finish(id: number, status: 'completed' | 'failed', reason: string | null) {
    const row = await this.#row(id)
    const now = this.clock.now().toISOString()
    await db.from('contact_imports').where('id', id).where('status', 'running').update({ status, error: reason, finished_at: now, updated_at: now, stored_file: null })
    if (row.stored_file) await rm(join(ContactImports.folder, row.stored_file), { force: true })
  }

  async #writeChunk(current: any, rows: ImportRow[], done: number, mapping: ImportMapping, columns: string[], localPrefix: string | null): Promise<number> {
    const refused: Array<{ row: number; reason: string }> = []
    const byPhone = new Map<string, ContactValues>()
    let mergedInFile = 0
    for (const row of rows) {
      const values = await this.#valuesOf(row, mapping, columns, localPrefix)
      if (typeof values === 'string') {
        refused.push({ row: row.line, reason: values })
        continue
      }
      const earlier = byPhone.get(values.phone)
      if (earlier) mergedInFile++
      byPhone.set(values.phone, earlier ? mergeValues(earlier, values) : values)
    }
    const now = this.clock.now().toISOString()

    return transaction(async (trx) => {
      const progress = await trx.from('contact_imports').where('id', current.id).where('processed_rows', done).where('status', 'running').update({ updated_at: now })
      // Another pass wrote this chunk already (two runs at once): nothing twice.
      if (!progress) throw new ChunkAlreadyWritten()
      const phones = [...byPhone.keys()]
      const existing = new Map<string, any>()
      for (const row of await trx.rawQuery(
        `SELECT c.id, c.phone, c.first_name, c.last_name, c.company, c.email, c.tags, c.fields,
           EXISTS (SELECT 1 FROM contact_import_contacts i WHERE i.import_id = ? AND i.contact_id = c.id) AS seen
         FROM contacts c WHERE c.phone IN (SELECT value FROM json_each(?))`,
        [current.id, JSON.stringify(phones)]
      )) {
        existing.set(row.phone, row)
      }

      const inserts: ContactValues[] = []
      const updates: Array<{ id: number; values: ContactValues }> = []
      let mergedEarlier = 0
      for (const values of byPhone.values()) {
        const found = existing.get(values.phone)
        if (!found) {
          inserts.push(values)
          continue
        }
        if (found.seen) mergedEarlier++
        const merged = mergeIntoContact(found, values)
        if (Object.keys(merged.fields).length > MAX_FIELDS) {
          refused.push({ row: values.line, reason: `The contact would have more than ${MAX_FIELDS} custom fields` })
          continue
        }
        updates.push({ id: found.id, values: merged })
      }

      const created = await insertContacts(trx, inserts, now)
      const ids = [...created.map((contact) => contact.id), ...(await updateContacts(trx, updates, now))]
      // A number that already wrote or received a message gets its conversation linked.
      await this.conversations.linkContacts(trx, created)
      if (ids.length) {
        await trx.rawQuery(`INSERT OR IGNORE INTO contact_import_contacts (import_id, contact_id) SELECT ?, value FROM json_each(?)`, [current.id, JSON.stringify(ids)])
        if (current.group_id) {
          await trx.rawQuery(`INSERT OR IGNORE INTO contact_group_members (group_id, contact_id, added_at) SELECT ?, value, ? FROM json_each(?)`, [
            current.group_id,
            now,
            JSON.stringify(ids),
          ])
        }
      }
      if (refused.length) {
        await trx.rawQuery(`INSERT OR IGNORE INTO contact_import_errors (import_id, row, reason) SELECT ?, json_extract(value, '$.row'), json_extract(value, '$.reason') FROM json_each(?)`, [
          current.id,
          JSON.stringify(refused),
        ])
      }
      const processed = done + rows.length
      await trx.rawQuery(
        `UPDATE contact_imports SET processed_rows = ?, created = created + ?, updated = updated + ?, merged = merged + ?,
           invalid = invalid + ?, updated_at = ? WHERE id = ?`,
        [processed, inserts.length, updates.length - mergedEarlier, mergedInFile + mergedEarlier, refused.length, now, current.id]
      )
      return processed
    })
  }

  async #valuesOf(row: ImportRow, mapping: ImportMapping, columns: string[], localPrefix: string | null): Promise<ContactValues | string> {
    const cell = (column: string | undefined) => (column === undefined ? '' : (row.cells[columns.indexOf(column)] ?? '').trim())
    const raw = cell(mapping.phone)
    if (!raw) return 'No phone number'
    let phone: string
    try {
      phone = this.phoneNumbers.normalize(raw, localPrefix)
    } catch {
      return `Not a valid phone number${localPrefix ? '' : ' (E.164, or set a local prefix in Settings > Reception)'}`
    }
    const text = {} as Record<keyof typeof LIMITS, string | null>
    for (const field of Object.keys(LIMITS) as Array<keyof typeof LIMITS>) {
      const value = cell(mapping[field])
      if (value.length > LIMITS[field]) return `The ${LABELS[field]} is longer than ${LIMITS[field]} characters`
      text[field] = value || null
    }
    if (text.email) {
      try {
        await emailRule.validate({ email: text.email })
      } catch {
        return 'Not a valid e-mail address'
      }
    }
    const tags = [...new Set(cell(mapping.tags).split(/[,;|]/).map((tag) => tag.trim()).filter(Boolean))]
    if (tags.some((tag) => tag.length > 50) || tags.length > 50) return 'Tags: at most 50, each up to 50 characters'
    const fields: Record<string, string> = {}
    for (const [key, column] of Object.entries(mapping.fields ?? {})) {
      const value = cell(column)
      if (value.length > MAX_FIELD_VALUE) return `The custom field ${key} is longer than ${MAX_FIELD_VALUE} characters`
      if (value) fields[key] = value
    }
    return { line: row.line, phone, firstName: text.firstName, lastName: text.lastName, company: text.company, email: text.email, tags, fields }
  }

  async #row(id: number) {
    const row = await db.from('contact_imports').where('id', id).first()
    if (!row) throw ApiError.notFound('Import')
    return row
  }
}

class ChunkAlreadyWritten extends Error {}

/** A later row of the same number: its non-empty values win, tags add up, fields merge. */
function mergeValues(earlier: ContactValues, later: ContactValues): ContactValues {
  return {
    line: later.line,
    phone: later.phone,
    firstName: later.firstName ?? earlier.firstName,
    lastName: later.lastName ?? earlier.lastName,
    company: later.company ?? earlier.company,
    email: later.email ?? earlier.email,
    tags: [...new Set([...earlier.tags, ...later.tags])],
    fields: { ...earlier.fields, ...later.fields },
  }
}

function mergeIntoContact(contact: any, values: ContactValues): ContactValues {
  return mergeValues(
    {
      line: values.line,
      phone: contact.phone,
      firstName: contact.first_name,
      lastName: contact.last_name,
      company: contact.company,
      email: contact.email,
      tags: JSON.parse(contact.tags ?? '[]'),
      fields: JSON.parse(contact.fields ?? '{}'),
    },
    values
  )
}

async function insertContacts(trx: TransactionClientContract, contacts: ContactValues[], now: string): Promise<Array<{ id: number; phone: string }>> {
  const created: Array<{ id: number; phone: string }> = []
  for (let start = 0; start < contacts.length; start += 200) {
    const chunk = contacts.slice(start, start + 200)
    const rows = await trx.rawQuery(
      `INSERT INTO contacts (phone, first_name, last_name, company, email, tags, fields, blacklisted, created_at, updated_at)
       VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, 0, ?, ?)').join(', ')} RETURNING id, phone`,
      chunk.flatMap((values): any[] => [values.phone, values.firstName, values.lastName, values.company, values.email, JSON.stringify(values.tags), JSON.stringify(values.fields), now, now])
    )
    created.push(...rows.map((row: { id: number; phone: string }) => ({ id: row.id, phone: row.phone })))
  }
  return created
}

async function updateContacts(trx: TransactionClientContract, updates: Array<{ id: number; values: ContactValues }>, now: string): Promise<number[]> {
  for (let start = 0; start < updates.length; start += 200) {
    const chunk = updates.slice(start, start + 200)
    await trx.rawQuery(
      `WITH changed(id, first_name, last_name, company, email, tags, fields) AS (VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')})
       UPDATE contacts SET first_name = changed.first_name, last_name = changed.last_name, company = changed.company, email = changed.email,
         tags = changed.tags, fields = changed.fields, updated_at = ?
       FROM changed WHERE contacts.id = changed.id`,
      [
        ...chunk.flatMap(({ id, values }): any[] => [id, values.firstName, values.lastName, values.company, values.email, JSON.stringify(values.tags), JSON.stringify(values.fields)]),
        now,
      ]
    )
  }
  return updates.map(({ id }) => id)
}

/** An import as the API answers it. */
function resource(row: any): ContactImportResource {
  const stored = storedSample(row)
  return {
    id: String(row.id),
    status: row.status as ImportStatus,
    fileName: row.file_name,
    columns: JSON.parse(row.columns) as string[],
    encoding: stored.encoding,
    sample: stored.rows,
    suggestedMapping: JSON.parse(row.suggested_mapping) as ImportMapping,
    previews: row.status === 'awaiting_mapping' ? stored.previews : null,
    mapping: row.mapping ? (JSON.parse(row.mapping) as ImportMapping) : null,
    groupId: row.group_id === null ? null : String(row.group_id),
    totalRows: row.total_rows,
    processedRows: row.processed_rows,
    created: row.created,
    updated: row.updated,
    merged: row.merged,
    invalid: row.invalid,
    error: row.error,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  }
}

declare module '@adonisjs/core/types' {
  interface EventsList {
    /** An import was mapped and waits for the import job. */
    'contacts:import_started': { id: number }
    /** A file was uploaded: the job drops it if nobody starts it within a day. */
    'contacts:import_uploaded': { id: number }
  }
}
