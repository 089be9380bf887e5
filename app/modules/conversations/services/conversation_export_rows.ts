import { ConversationStore } from '#modules/conversations/stores/conversation_store'

/** The conversations export's columns, in order (docs/exports.md, Columns, in this order). */
export const conversationExportColumns = ['id', 'phone', 'contactId', 'state', 'unreadCount', 'pinned', 'archived', 'assignedTo', 'createdAt', 'lastMessageAt'] as const

export type ConversationExportRow = Record<(typeof conversationExportColumns)[number], string | number | boolean | null>

/** Rows per read: memory holds one chunk, whatever the table's size. */
const CHUNK = 1000

/** A store holds no state: a plain function makes its own (docs/modules.md, Data access). */
const store = new ConversationStore()

const id = (value: number | string | null) => (value === null || value === undefined ? null : String(value))

// No message text: a conversation is listed by its number and state only (docs/exports.md).
function shape(row: any): ConversationExportRow {
  return {
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
  }
}

/**
 * Every conversation, oldest to newest, read in keyset chunks of (created_at, id): what the
 * exports module streams as the conversations export.
 */
export async function* conversationExportRows(): AsyncGenerator<ConversationExportRow> {
  let after: { createdAt: string; id: number } | null = null
  for (;;) {
    const rows = await store.exportChunk(after, CHUNK)
    for (const row of rows) yield shape(row)
    if (rows.length < CHUNK) return
    const last = rows[rows.length - 1]
    after = { createdAt: last.created_at, id: last.id }
  }
}
