import db from '@adonisjs/lucid/services/db'
import { storedColumn } from '#modules/messages/schemas'
import { whereMessageFilters, type MessageFilters } from '#modules/messages/stores/message_store'

/** The messages export's columns, in order (docs/exports.md, Columns, in this order). */
export const messageExportColumns = [
  'id',
  'conversationId',
  'direction',
  'phone',
  'body',
  'encoding',
  'segments',
  'status',
  'errorCode',
  'deviceId',
  'simSlot',
  'attempts',
  'createdAt',
  'sentAt',
  'deliveredAt',
  'failedAt',
] as const

export type MessageExportRow = Record<(typeof messageExportColumns)[number], string | number | null>

/** Rows per read: memory holds one chunk, whatever the table's size. */
const CHUNK = 1000

const STORED = messageExportColumns.map(storedColumn)

/** Identifiers are exported as text, as the API answers them. */
const TEXT_IDS = new Set<string>(['id', 'conversationId', 'deviceId'])

function shape(row: any): MessageExportRow {
  const shaped = {} as MessageExportRow
  messageExportColumns.forEach((column, index) => {
    const value = row[STORED[index]]
    shaped[column] = TEXT_IDS.has(column) && value !== null ? String(value) : value
  })
  return shaped
}

/**
 * Every message, oldest to newest, read in keyset chunks of (created_at, id): what the exports
 * module streams as the messages export (conversations and contacts: their modules' own rows).
 * With filters (resolved as the list's are: MessageQueries.resolved) or ids, only the messages
 * they match, so an export of a list's selection holds what the list shows.
 * A store of the `messages` table read so (docs/modules.md, Data access): the query builder.
 */
export function messageExportRows(filters: MessageFilters = {}, ids?: number[]): AsyncGenerator<MessageExportRow> {
  // Conditions built now, not at the first read: a refused date bound is answered before the download starts.
  const matching = whereMessageFilters(db.from('messages').select(STORED), filters)
  if (ids) matching.whereIn('id', ids)
  return chunksOf(matching)
}

async function* chunksOf(matching: ReturnType<typeof db.from>): AsyncGenerator<MessageExportRow> {
  let after: { createdAt: string; id: number } | null = null
  for (;;) {
    const query = matching.clone().orderBy('created_at').orderBy('id').limit(CHUNK)
    if (after) query.whereRaw('(created_at, id) > (?, ?)', [after.createdAt, after.id])
    const rows: any[] = await query
    for (const row of rows) yield shape(row)
    if (rows.length < CHUNK) return
    const last = rows[rows.length - 1]
    after = { createdAt: last.created_at, id: last.id }
  }
}
