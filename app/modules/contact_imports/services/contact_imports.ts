import { inject } from '@adonisjs/core'
import emitter from '@adonisjs/core/services/emitter'
import vine from '@vinejs/vine'
import { randomUUID } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { Transform, type Readable } from 'node:stream'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { DataFolder } from '#core/data_folder/data_folder'
import { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { SettingsStore } from '#core/settings/settings_store'
import { decodeCursor, encodeCursor, DEFAULT_PAGE_SIZE, type PageRequest } from '#core/pagination/keyset_page'
import {
  ImportFileProblem,
  MAX_IMPORT_BYTES,
  importRows,
  readImportFileStart,
  summarizeImportFile,
  type ImportFileReading,
  type ImportRow,
} from '#modules/contact_imports/services/contact_import_file'
import { checkMapping, suggestMapping, type ImportMapping } from '#modules/contact_imports/services/contact_import_mapping'
import { IMPORT_ENCODINGS, type ImportEncoding } from '#modules/contact_imports/services/contact_import_encoding'
import type { PageOf } from '#core/contract/schemas'
import type { ContactImportResource, ImportErrorPage, contactImportSchema } from '#modules/contact_imports/schemas'
import { transaction } from '#core/database/transaction'
import { ContactGroups, ImportedContacts, MAX_FIELDS, MAX_FIELD_VALUE, type ImportedValues } from '#modules/contacts/public'
import { ImportStore, type ImportRow as StoredImport } from '#modules/contact_imports/stores/import_store'

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

/** A row turned into contact values, with its line in the file. */
interface ContactValues extends ImportedValues {
  line: number
}

/**
 * Contacts imported from a CSV: the upload is kept in the data folder with its columns and a
 * sample until someone maps the columns; then the import job writes it chunk by chunk, each
 * chunk one transaction that also records how far it got (the contacts module writes the
 * chunk's contacts with it, `ImportedContacts`, so both commit together or not at all). Numbers
 * are completed with the local prefix, a number twice in the file is one contact (later
 * non-empty values win), an existing contact is updated with the file's non-empty values (tags
 * added, custom fields merged, the opt-out never touched), and invalid rows are kept with their
 * line and reason.
 */
@inject()
export class ContactImports {
  constructor(
    private clock: Clock,
    private phoneNumbers: PhoneNumbers,
    private settings: SettingsStore,
    private imports: ImportStore,
    private contacts: ImportedContacts,
    private groups: ContactGroups
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
    // Past the cap the rest is read and dropped, not refused on the spot: a part no longer read
    // would stall the multipart parser, and a body sent in chunks would never be answered. The
    // parser's own limit ends a body that goes on.
    const sizeGuard = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length
        done(null, bytes > MAX_IMPORT_BYTES ? undefined : chunk)
      },
    })
    try {
      await pipeline(content, sizeGuard, createWriteStream(path, { mode: 0o600 }))
    } catch (error) {
      await rm(path, { force: true })
      throw error
    }
    if (bytes > MAX_IMPORT_BYTES) {
      await rm(path, { force: true })
      throw new ApiError('PAYLOAD_TOO_LARGE', 'The file is over 20 MiB: split it', { limitBytes: MAX_IMPORT_BYTES })
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
    const id = await this.imports.addUpload({
      fileName: fileName.slice(0, 255),
      storedFile: stored,
      delimiter: summary.delimiter,
      columns: JSON.stringify(detected.columns),
      sample: JSON.stringify(sample),
      suggestedMapping: JSON.stringify(detected.suggestedMapping),
      totalRows: summary.totalRows,
      at: now,
    })
    await emitter.emit('contacts:import_uploaded', { id })
    return this.find(id)
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
    if (groupId !== null && !(await this.groups.exists(groupId))) throw ApiError.notFound('Group')
    const now = this.clock.now().toISOString()
    // Once started, the file is read one way only: the previews go (they hold contacts' values).
    const sample: StoredSample = { encoding: chosen, rows: reading.sample, previews: null }
    const moved = await this.imports.start(id, {
      mapping: JSON.stringify(mapping),
      groupId,
      columns: JSON.stringify(reading.columns),
      sample: JSON.stringify(sample),
      suggestedMapping: JSON.stringify(reading.suggestedMapping),
      at: now,
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
    const after = page.cursor ? decodeCursor(page.cursor) : null
    const rows = await this.imports.newestFirst(limit + 1, after && { createdAt: after.sortValue, id: after.id })
    const data = rows.slice(0, limit)
    const last = data.at(-1)
    return { data: data.map(resource), nextCursor: rows.length > limit && last ? encodeCursor({ sortValue: last.created_at, id: last.id }) : null }
  }

  /** The rows refused, in file order. */
  async errors(id: number, page: PageRequest): Promise<ImportErrorPage> {
    await this.#row(id)
    const limit = page.limit ?? DEFAULT_PAGE_SIZE
    const after = page.cursor ? Number(decodeCursor(page.cursor).id) : 0
    const rows = await this.imports.errorsAfter(id, after, limit + 1)
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
    for (const row of await this.imports.unstartedSince(limit)) {
      const dropped = await this.imports.dropUnstarted(row.id, 'Never started: the file was dropped after 24 hours', now.toISOString())
      if (dropped && row.stored_file) await rm(join(ContactImports.folder, row.stored_file), { force: true })
    }
    const next = await this.imports.oldestUnstarted()
    return next ? new Date(Date.parse(next) + UNSTARTED_UPLOAD_KEPT_MS) : null
  }

  /** The import the job should work on, oldest first. */
  async nextRunning(): Promise<number | null> {
    return this.imports.nextRunning()
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
    await this.imports.finish(id, status, reason, now)
    if (row.stored_file) await rm(join(ContactImports.folder, row.stored_file), { force: true })
  }

  async #writeChunk(current: StoredImport, rows: ImportRow[], done: number, mapping: ImportMapping, columns: string[], localPrefix: string | null): Promise<number> {
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
      // Another pass wrote this chunk already (two runs at once): nothing twice.
      if (!(await this.imports.claimChunk(trx, current.id, done, now))) throw new ChunkAlreadyWritten()
      const existing = await this.contacts.existing(trx, current.id, [...byPhone.keys()])

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
        const merged = mergeValues({ ...found, line: values.line }, values)
        if (Object.keys(merged.fields).length > MAX_FIELDS) {
          refused.push({ row: values.line, reason: `The contact would have more than ${MAX_FIELDS} custom fields` })
          continue
        }
        updates.push({ id: found.id, values: merged })
      }

      await this.contacts.write(trx, { importId: current.id, added: inserts, changed: updates, groupId: current.group_id }, now)
      if (refused.length) await this.imports.addErrors(trx, current.id, refused)
      const processed = done + rows.length
      await this.imports.recordChunk(
        trx,
        current.id,
        { processedRows: processed, created: inserts.length, updated: updates.length - mergedEarlier, merged: mergedInFile + mergedEarlier, invalid: refused.length },
        now
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
    const row = await this.imports.find(id)
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
