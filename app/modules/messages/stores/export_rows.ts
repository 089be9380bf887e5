import db from '@adonisjs/lucid/services/db'

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

const COLUMNS = ['id', 'conversation_id', 'direction', 'phone', 'body', 'encoding', 'segments', 'status', 'error_code', 'device_id', 'sim_slot', 'attempts', 'created_at', 'sent_at', 'delivered_at', 'failed_at']

const id = (value: number | string | null) => (value === null || value === undefined ? null : String(value))

function shape(row: any): MessageExportRow {
  return {
    id: id(row.id),
    conversationId: id(row.conversation_id),
    direction: row.direction,
    phone: row.phone,
    body: row.body,
    encoding: row.encoding,
    segments: row.segments,
    status: row.status,
    errorCode: row.error_code,
    deviceId: id(row.device_id),
    simSlot: row.sim_slot,
    attempts: row.attempts,
    createdAt: row.created_at,
    sentAt: row.sent_at,
    deliveredAt: row.delivered_at,
    failedAt: row.failed_at,
  }
}

/**
 * Every message, oldest to newest, read in keyset chunks of (created_at, id): what the exports
 * module streams as the messages export (conversations and contacts: their modules' own rows).
 * A store of the `messages` table read so (docs/modules.md, Data access): the query builder.
 */
export async function* messageExportRows(): AsyncGenerator<MessageExportRow> {
  let after: { createdAt: string; id: number } | null = null
  for (;;) {
    const query = db.from('messages').select(COLUMNS).orderBy('created_at').orderBy('id').limit(CHUNK)
    if (after) query.whereRaw('(created_at, id) > (?, ?)', [after.createdAt, after.id])
    const rows: any[] = await query
    for (const row of rows) yield shape(row)
    if (rows.length < CHUNK) return
    const last = rows[rows.length - 1]
    after = { createdAt: last.created_at, id: last.id }
  }
}
