import { Readable } from 'node:stream'
import { stringify } from 'csv-stringify'
import type { RecipientResource } from '#modules/campaigns/schemas'

export const RECIPIENT_COLUMNS = ['id', 'run', 'phone', 'contactId', 'status', 'errorCode', 'messageId', 'updatedAt'] as const

/** Recipients one by one from pages read in id order. */
async function* rowsOf(pages: AsyncIterable<RecipientResource[]>) {
  for await (const page of pages) yield* page
}

/**
 * A campaign's recipients as CSV (header line always, csv-stringify quoting, empty field for
 * null; no cell can start a formula: the values are ids, E.164 numbers, statuses and codes) or as
 * a JSON array written row by row, as the exports module writes its files.
 */
export function recipientExport(format: 'csv' | 'json', pages: AsyncIterable<RecipientResource[]>): Readable {
  if (format === 'csv') return Readable.from(rowsOf(pages)).pipe(stringify({ header: true, columns: [...RECIPIENT_COLUMNS] }))
  return Readable.from(
    (async function* () {
      let first = true
      yield '['
      for await (const row of rowsOf(pages)) {
        yield (first ? '' : ',') + JSON.stringify(row)
        first = false
      }
      yield ']'
    })()
  )
}
