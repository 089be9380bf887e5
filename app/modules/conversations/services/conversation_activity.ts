import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import type { MessageCategory } from '#modules/conversations/models/conversation'

/** A message to or from a number, as its conversation sees it. */
export interface ConversationActivity {
  phone: string
  direction: 'out' | 'in'
  /** The category of a message sent; for an SMS received, that of a conversation it creates. */
  category: MessageCategory
  /** ISO 8601. */
  at: string
}

/** The conversation a number's message belongs to. */
export interface ConversationOfMessage {
  id: number
  /** The category an inbound SMS takes: that of the last message sent to the number. */
  category: MessageCategory
  /** The number's contact opted out (contacts.blacklisted). */
  optedOut: boolean
}

/** Numbers per upsert: three values each, far below SQLite's bound-variable limit. */
const CHUNK = 1000

/**
 * The one rule for conversations: a number's first message, either way, creates its conversation
 * (linked to the number's contact); every later one touches it. A message sent leaves it `open`
 * with the message's category; an SMS received leaves it `awaiting_reply` with one more unread, its
 * category unchanged. One upsert per direction and chunk, whatever the number of messages; within a
 * batch the last message to a number wins. The messages module calls it on its own client, inside
 * the transaction that stores the messages (a send, a campaign's turn, a received SMS).
 *
 * The upsert reads the contacts module's `contacts` table (the number's contact id and its
 * opt-out, `blacklisted`): the one read a module makes of another module's table, kept in the
 * SQL because asking the contacts module would cost a statement per send on the hot path
 * (docs/modules.md, The one read of another module's table). It never writes there.
 */
export async function recordConversationActivity(
  client: QueryClientContract,
  activities: ConversationActivity[]
): Promise<Map<string, ConversationOfMessage>> {
  const conversations = new Map<string, ConversationOfMessage>()
  for (const direction of ['out', 'in'] as const) {
    const latest = new Map<string, ConversationActivity>()
    for (const activity of activities) if (activity.direction === direction) latest.set(activity.phone, activity)
    const entries = [...latest.values()]
    for (let start = 0; start < entries.length; start += CHUNK) {
      const chunk = entries.slice(start, start + CHUNK)
      // Each number binds its phone, category and time once; the rest is written in the SQL.
      // (`WHERE true`: SQLite's grammar for an upsert fed by a SELECT.)
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
      for (const row of rows) conversations.set(row.phone, { id: row.id, category: row.category, optedOut: Boolean(row.opted_out) })
    }
  }
  return conversations
}
