import { Readable } from 'node:stream'
import { stringify } from 'csv-stringify'
import type { ExportRow } from '#modules/messages/services/export_rows'

export type ExportFormat = 'csv' | 'json'

/**
 * CSV with a header line even when there is no row, proper quoting (csv-stringify), a missing
 * value or date as an empty field, booleans as true/false and tags joined by `;`.
 */
export function csvStream(columns: readonly string[], rows: AsyncIterable<ExportRow>): Readable {
  const csv = stringify({
    header: true,
    columns: [...columns],
    cast: {
      boolean: (value) => (value ? 'true' : 'false'),
      object: (value) => (Array.isArray(value) ? value.join(';') : JSON.stringify(value)),
    },
  })
  return Readable.from(rows).pipe(csv)
}

/** A JSON array written row by row: `[]` when empty, never the whole array in memory. */
export function jsonStream(rows: AsyncIterable<ExportRow>): Readable {
  return Readable.from(
    (async function* () {
      let first = true
      yield '['
      for await (const row of rows) {
        yield (first ? '' : ',') + JSON.stringify(row)
        first = false
      }
      yield ']'
    })()
  )
}
