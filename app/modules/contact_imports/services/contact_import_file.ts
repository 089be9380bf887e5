import { open } from 'node:fs/promises'
import { parse, type Parser } from 'csv-parse'
import { IMPORT_ENCODINGS, detectImportEncoding, readAsUtf8, type ImportEncoding } from '#modules/contact_imports/services/contact_import_encoding'

/**
 * A CSV of contacts is at most 20 MiB and 100,000 data rows (docs/campaigns.md, Importing contacts
 * from a CSV).
 */
export const MAX_IMPORT_BYTES = 20 * 1024 * 1024
export const MAX_IMPORT_ROWS = 100_000
/** Rows shown beside the columns so a person can map them. */
const SAMPLE_ROWS = 5

/** The header and the first rows, as one encoding reads them. */
export interface ImportFileReading {
  columns: string[]
  sample: string[][]
}

/**
 * What an uploaded file holds, read once at upload: the encoding detected, and the header and
 * first rows as each encoding reads them (the person mapping the columns may choose the other).
 */
export interface ImportFileSummary {
  delimiter: string
  encoding: ImportEncoding
  readings: Record<ImportEncoding, ImportFileReading>
  totalRows: number
}

/** One data row: its line in the file (as a spreadsheet numbers it, the header being 1) and its cells. */
export interface ImportRow {
  line: number
  cells: string[]
}

export class ImportFileProblem extends Error {}

/**
 * The delimiter of a spreadsheet export: a comma, or a semicolon (Excel where the decimal mark
 * is a comma), or a tab: whichever the header line holds most of.
 */
async function detectDelimiter(file: string): Promise<string> {
  const handle = await open(file, 'r')
  try {
    const buffer = Buffer.alloc(64 * 1024)
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
    const firstLine = buffer.subarray(0, bytesRead).toString('utf8').split(/\r?\n/)[0] ?? ''
    const counts = [',', ';', '\t'].map((candidate) => ({ candidate, count: firstLine.split(candidate).length - 1 }))
    counts.sort((a, b) => b.count - a.count)
    return counts[0].count > 0 ? counts[0].candidate : ','
  } finally {
    await handle.close()
  }
}

function parser(file: string, delimiter: string, encoding: ImportEncoding): Parser {
  const reader = parse({ bom: true, delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, trim: true, info: true })
  const source = readAsUtf8(file, encoding)
  source.on('error', (error) => reader.destroy(error)).pipe(reader)
  // A reader left early (the first rows only) lets go of the file at once.
  reader.on('close', () => source.destroy())
  return reader
}

/**
 * Reads the file with `encoding` (to its end unless `firstRowsOnly`): the header, a sample and
 * the row count. The quotes, delimiters and line ends a CSV is made of are the same bytes in
 * both encodings, so the rows are the same ones whichever reads them; only the letters differ.
 */
async function readImportFile(file: string, delimiter: string, encoding: ImportEncoding, firstRowsOnly: boolean) {
  let columns: string[] | null = null
  const sample: string[][] = []
  let totalRows = 0
  try {
    for await (const { record } of parser(file, delimiter, encoding) as AsyncIterable<{ record: string[] }>) {
      if (!columns) {
        columns = record.map((name, index) => name || `Column ${index + 1}`)
        continue
      }
      if (record.every((cell) => cell === '')) continue
      totalRows++
      if (totalRows > MAX_IMPORT_ROWS) throw new ImportFileProblem(`The file has more than ${MAX_IMPORT_ROWS.toLocaleString('en')} rows: split it`)
      if (sample.length < SAMPLE_ROWS) sample.push(record)
      else if (firstRowsOnly) break
    }
  } catch (error) {
    if (error instanceof ImportFileProblem) throw error
    throw new ImportFileProblem('The file is not a CSV this gateway can read (check its quotes)')
  }
  return { columns, sample, totalRows }
}

/**
 * Reads the encoding, the header, a sample and the row count; refuses a UTF-16 file, an empty
 * one or one over the limit.
 */
export async function summarizeImportFile(file: string): Promise<ImportFileSummary> {
  const encoding = await detectImportEncoding(file)
  if (encoding === 'utf-16') {
    throw new ImportFileProblem('The file is UTF-16 (a spreadsheet’s “Unicode text”): save it as “CSV UTF-8” and upload it again')
  }
  const delimiter = await detectDelimiter(file)
  const { columns, sample, totalRows } = await readImportFile(file, delimiter, encoding, false)
  if (!columns) throw new ImportFileProblem('The file is empty: it needs a header row, then one contact per row')
  if (!totalRows) throw new ImportFileProblem('The file has a header row but no contact under it')
  const readings = {} as Record<ImportEncoding, ImportFileReading>
  for (const other of IMPORT_ENCODINGS) readings[other] = other === encoding ? { columns, sample } : await readImportFileStart(file, delimiter, other)
  return { delimiter, encoding, readings, totalRows }
}

/** The header and the first rows as `encoding` reads them (the mapping step's choice). */
export async function readImportFileStart(file: string, delimiter: string, encoding: ImportEncoding): Promise<ImportFileReading> {
  const { columns, sample } = await readImportFile(file, delimiter, encoding, true)
  return { columns: columns ?? [], sample }
}

/** The data rows after the first `skip` ones (resuming after a restart), in order, read with `encoding`. */
export async function* importRows(file: string, delimiter: string, skip: number, encoding: ImportEncoding): AsyncGenerator<ImportRow> {
  let header = true
  let seen = 0
  for await (const { record, info } of parser(file, delimiter, encoding) as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    if (header) {
      header = false
      continue
    }
    if (record.every((cell) => cell === '')) continue
    if (seen++ < skip) continue
    yield { line: info.lines, cells: record }
  }
}
