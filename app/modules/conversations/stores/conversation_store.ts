import db from '@adonisjs/lucid/services/db'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import { toIso } from '#core/database/utc_date_time'
import { likeContaining } from '#core/database/like_pattern'
import { keysetPage, type Page, type PageRequest } from '#core/pagination/keyset_page'
import Conversation from '#modules/conversations/models/conversation'
import type { ConversationState, MessageCategory } from '#modules/conversations/conversation_values'

export interface ConversationFilters extends PageRequest {
  state?: ConversationState
  category?: MessageCategory
  archived?: boolean
  pinned?: boolean
  unread?: boolean
  q?: string
  /** A search's matches (`ConversationTexts.matching`), and the digits of a `q` written like a number. */
  matching?: { conversationIds: number[]; phones: string[]; digits: string | null }
}

/** A message to or from a number, as the upsert writes it. */
export interface ActivityRow {
  phone: string
  category: MessageCategory
  /** ISO 8601. */
  at: string
}

/** What the upsert answers for each number. */
export interface UpsertedConversation {
  id: number
  phone: string
  category: MessageCategory
  optedOut: boolean
}

/** The columns of the conversations export, as the table names them. */
const EXPORT_COLUMNS = ['id', 'phone', 'contact_id', 'state', 'unread_count', 'pinned', 'archived', 'assigned_to', 'created_at', 'last_message_at']

/**
 * The `conversations` table (docs/modules.md, Data access). The Conversation model and the query
 * builder for what the API lists, reads and changes and for the export's chunks; SQL text for
 * the two statements the builder cannot write in one: the upsert every message makes (an
 * `INSERT … SELECT … ON CONFLICT … RETURNING` fed by a list of values) and the link of
 * conversations to their contacts (`UPDATE … FROM json_each(…)`).
 */
export class ConversationStore {
  /**
   * Creates or touches the conversations of these numbers in one statement, on the caller's
   * client. Each number binds its phone, category and time once; the rest is written in the SQL
   * (`WHERE true`: SQLite's grammar for an upsert fed by a SELECT).
   *
   * It reads the contacts module's `contacts` table (the number's contact id and its opt-out,
   * `blacklisted`): the one read a module makes of another module's table, kept in the
   * statement because asking the contacts module would cost a statement per send on the hot
   * path (docs/modules.md, The one read of another module's table). It never writes there.
   */
  async upsertActivity(client: QueryClientContract, direction: 'out' | 'in', chunk: ActivityRow[]): Promise<UpsertedConversation[]> {
    const rows = await client.rawQuery(
      `INSERT INTO conversations (phone, contact_id, state, unread_count, pinned, archived, category, created_at, last_message_at)
       SELECT v.column1, (SELECT id FROM contacts WHERE contacts.phone = v.column1), '${direction === 'out' ? 'open' : 'awaiting_reply'}',
         ${direction === 'out' ? 0 : 1}, 0, 0, v.column2, v.column3, v.column3
       FROM (VALUES ${chunk.map(() => '(?, ?, ?)').join(', ')}) AS v WHERE true
       ON CONFLICT (phone) DO UPDATE SET
         last_message_at = excluded.last_message_at,
         state = excluded.state,
         ${direction === 'out' ? 'category = excluded.category,' : 'unread_count = conversations.unread_count + 1,'}
         contact_id = COALESCE(conversations.contact_id, excluded.contact_id)
       RETURNING id, phone, category, (SELECT blacklisted FROM contacts WHERE contacts.phone = conversations.phone) AS opted_out`,
      chunk.flatMap((activity): any[] => [activity.phone, activity.category, activity.at])
    )
    return rows.map((row: any) => ({ id: row.id, phone: row.phone, category: row.category, optedOut: Boolean(row.opted_out) }))
  }

  /** The conversations of these numbers that have no contact take the number's contact: one statement. */
  async linkContacts(client: QueryClientContract, contacts: Array<{ id: number; phone: string }>): Promise<void> {
    await client.rawQuery(
      `UPDATE conversations SET contact_id = c.id
       FROM (SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.phone') AS phone FROM json_each(?)) AS c
       WHERE conversations.phone = c.phone AND conversations.contact_id IS NULL`,
      [JSON.stringify(contacts.map(({ id, phone }) => ({ id, phone })))]
    )
  }

  async unlinkContact(client: QueryClientContract, contactId: number): Promise<void> {
    await client.from('conversations').where('contact_id', contactId).update({ contact_id: null })
  }

  /** A page of conversations, the latest activity first. */
  async page(filters: ConversationFilters): Promise<Page<Conversation>> {
    const query = Conversation.query()
    if (filters.state) query.where('state', filters.state)
    if (filters.category) query.where('category', filters.category)
    if (filters.archived !== undefined) query.where('archived', filters.archived)
    if (filters.pinned !== undefined) query.where('pinned', filters.pinned)
    if (filters.unread !== undefined) query.where('unread_count', filters.unread ? '>' : '=', 0)
    const matching = filters.matching
    if (matching) {
      query.where((match) => {
        match.whereRaw('conversations.id IN (SELECT value FROM json_each(?))', [JSON.stringify(matching.conversationIds)])
        match.orWhereRaw('conversations.phone IN (SELECT value FROM json_each(?))', [JSON.stringify(matching.phones)])
        if (matching.digits) match.orWhere('phone', 'like', likeContaining(matching.digits))
      })
    }
    return keysetPage(query, filters, 'last_message_at', (row) => toIso(row.lastMessageAt))
  }

  async find(id: number): Promise<Conversation | null> {
    return Conversation.find(id)
  }

  /** Pin, archive, read count and assignee, as the API changes them; one left out stays. */
  async change(
    conversation: Conversation,
    fields: { pinned?: boolean; archived?: boolean; unreadCount?: number; assignedTo?: number | null }
  ): Promise<void> {
    if (fields.pinned !== undefined) conversation.pinned = fields.pinned
    if (fields.archived !== undefined) conversation.archived = fields.archived
    if (fields.unreadCount !== undefined) conversation.unreadCount = fields.unreadCount
    if (fields.assignedTo !== undefined) conversation.assignedTo = fields.assignedTo
    await conversation.save()
  }

  /** Up to `limit` rows as the table holds them, oldest first by (created_at, id), after `after`. */
  async exportChunk(after: { createdAt: string; id: number } | null, limit: number): Promise<any[]> {
    const query = db.from('conversations').select(EXPORT_COLUMNS).orderBy('created_at').orderBy('id').limit(limit)
    if (after) query.whereRaw('(created_at, id) > (?, ?)', [after.createdAt, after.id])
    return query
  }
}
