import { Readable } from 'node:stream'
import { stringify } from 'csv-stringify'
import type { ExportRow } from '#modules/exports/services/export_datasets'

export type ExportFormat = 'csv' | 'json'

/** What a spreadsheet reads as a formula when a cell starts with it. */
const FORMULA_START = /^[=+\-@\t\r]/
/** Plain numbers (a phone number in E.164, a negative count) are not formulas: kept as they are. */
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/

/**
 * A text cell a spreadsheet would run as a formula (an inbound SMS reading `=HYPERLINK(...)`, a
 * contact named `@SUM(...)`) starts with an apostrophe instead, so it shows as text (OWASP's
 * advice for CSV injection). The JSON export keeps every value as it is.
 */
export function neutralizeFormula(value: string): string {
  return FORMULA_START.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value
}

/**
 * CSV with a header line even when there is no row, proper quoting (csv-stringify), a missing
 * value or date as an empty field, booleans as true/false, tags joined by `;` and formulas
 * neutralised.
 */
export function csvStream(columns: readonly string[], rows: AsyncIterable<ExportRow>): Readable {
  const csv = stringify({
    header: true,
    columns: [...columns],
    cast: {
      boolean: (value) => (value ? 'true' : 'false'),
      string: (value) => neutralizeFormula(value),
      object: (value) => neutralizeFormula(Array.isArray(value) ? value.join(';') : JSON.stringify(value)),
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
