import db from '@adonisjs/lucid/services/db'

/** Export columns of messages and conversations, in order (docs/exports.md, Columns, in this order). */
export const messageExportColumns = {
  messages: [
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
  ],
  conversations: ['id', 'phone', 'contactId', 'state', 'unreadCount', 'pinned', 'archived', 'assignedTo', 'createdAt', 'lastMessageAt'],
} as const

export type MessageExportDataset = keyof typeof messageExportColumns
export type ExportRow = Record<string, string | number | boolean | string[] | null>

/** Rows per read: memory holds one chunk, whatever the table's size. */
const CHUNK = 1000

const id = (value: number | string | null) => (value === null || value === undefined ? null : String(value))

const shapes: Record<MessageExportDataset, { table: string; columns: string[]; shape: (row: any) => ExportRow }> = {
  messages: {
    table: 'messages',
    columns: ['id', 'conversation_id', 'direction', 'phone', 'body', 'encoding', 'segments', 'status', 'error_code', 'device_id', 'sim_slot', 'attempts', 'created_at', 'sent_at', 'delivered_at', 'failed_at'],
    shape: (row) => ({
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
    }),
  },
  // No message text: a conversation is listed by its number and state only (docs/exports.md).
  conversations: {
    table: 'conversations',
    columns: ['id', 'phone', 'contact_id', 'state', 'unread_count', 'pinned', 'archived', 'assigned_to', 'created_at', 'last_message_at'],
    shape: (row) => ({
      id: id(row.id),
      phone: row.phone,
      contactId: id(row.contact_id),
      state: row.state,
      unreadCount: row.unread_count,
      pinned: Boolean(row.pinned),
      archived: Boolean(row.archived),
      assignedTo: id(row.assigned_to),
      createdAt: row.created_at,
      lastMessageAt: row.last_message_at,
    }),
  },
}

/**
 * The rows of an export, oldest to newest, read in keyset chunks of (created_at, id): the one
 * service the exports module reads messages and conversations through (contacts: the contacts
 * module's contactExportRows).
 */
export async function* messageExportRows(dataset: MessageExportDataset): AsyncGenerator<ExportRow> {
  const { table, columns, shape } = shapes[dataset]
  let after: { createdAt: string; id: number } | null = null
  for (;;) {
    const query = db.from(table).select(columns).orderBy('created_at').orderBy('id').limit(CHUNK)
    if (after) query.whereRaw('(created_at, id) > (?, ?)', [after.createdAt, after.id])
    const rows: any[] = await query
    for (const row of rows) yield shape(row)
    if (rows.length < CHUNK) return
    const last = rows[rows.length - 1]
    after = { createdAt: last.created_at, id: last.id }
  }
}
