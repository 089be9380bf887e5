import type { QueryClientContract } from '@adonisjs/lucid/types/database'
import type { MessageCategory } from '#modules/conversations/conversation_values'
import { ConversationStore } from '#modules/conversations/stores/conversation_store'
import { chunksOf } from '#core/database/statement_chunks'

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

/** A store holds no state: a plain function makes its own (docs/modules.md, Data access). */
const store = new ConversationStore()

/**
 * The one rule for conversations: a number's first message, either way, creates its conversation
 * (linked to the number's contact); every later one touches it. A message sent leaves it `open`
 * with the message's category; an SMS received leaves it `awaiting_reply` with one more unread, its
 * category unchanged. One upsert per direction and chunk, whatever the number of messages; within a
 * batch the last message to a number wins. The messages module calls it on its own client, inside
 * the transaction that stores the messages (a send, a campaign's turn, a received SMS). The
 * upsert answers each number's contact opt-out too (`ConversationStore.upsertActivity`, the one
 * read of another module's table).
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
    for (const chunk of chunksOf(entries, CHUNK)) {
      for (const row of await store.upsertActivity(client, direction, chunk)) {
        conversations.set(row.phone, { id: row.id, category: row.category, optedOut: row.optedOut })
      }
    }
  }
  return conversations
}
