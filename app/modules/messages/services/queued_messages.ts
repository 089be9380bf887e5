import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { recordConversationActivity } from '#modules/conversations/public'
import type { MessageCategory } from '#modules/messages/message_values'
import type { MessageRow } from '#modules/messages/schemas'
import { insertQueued, recipientRow, sharedColumns } from '#modules/messages/stores/message_inserts'

/** One send's messages to queue: its numbers, and what they share, the text as it will leave. */
export interface OutboundSend {
  numbers: string[]
  body: string
  category: MessageCategory
  deviceId: string | null
  simSlot: number | null
  /** ISO UTC, as stored. */
  scheduledAt: string | null
  campaignId: number | null
  /** When it was accepted, ISO UTC: the message's creation and its conversation's activity. */
  at: string
  /** Only the confirmation of an opt-out: it goes to the number that has just opted out. */
  evenIfOptedOut?: boolean
}

/**
 * What an opted-out number does to the sends queued with it: `stop` inserts nothing (the caller
 * rolls its transaction back, as the conversations were touched, and queues again without
 * the sends it refuses); `skip` leaves out only the sends that name one.
 */
export type OptedOutRule = 'stop' | 'skip'

export interface QueuedOutcome {
  /** The opted-out numbers found, each once (those of an `evenIfOptedOut` send excepted). */
  optedOut: string[]
  /** Each send's messages as written, in its numbers' order; null for a send left out. Empty when `stop` stopped. */
  messages: Array<MessageRow[] | null>
}

/**
 * Queued outbound messages inserted with their numbers' conversations, on the caller's
 * transaction: the conversations module's upsert first (it creates a number's first
 * conversation and reads its opt-out, docs/modules.md, The one read of another module's table),
 * then one INSERT per 1,000 recipients (`stores/message_inserts.ts`). Each send is one group
 * of the insert: its recipients bind only their number and conversation.
 */
export async function queueMessages(trx: TransactionClientContract, sends: OutboundSend[], rule: OptedOutRule): Promise<QueuedOutcome> {
  const conversations = await recordConversationActivity(
    trx,
    sends.flatMap((send) => send.numbers.map((phone) => ({ phone, direction: 'out' as const, category: send.category, at: send.at })))
  )
  const mayBeOptedOut = new Set(sends.filter((send) => send.evenIfOptedOut).flatMap((send) => send.numbers))
  const optedOut: string[] = []
  for (const [phone, conversation] of conversations) {
    if (conversation.optedOut && !mayBeOptedOut.has(phone)) optedOut.push(phone)
  }
  if (optedOut.length && rule === 'stop') return { optedOut, messages: [] }

  const refused = new Set(optedOut)
  const kept = refused.size ? sends.filter((send) => !send.numbers.some((phone) => refused.has(phone))) : sends
  const rowsPerSend = kept.map((send) => {
    const shared = sharedColumns(send)
    return send.numbers.map((phone) => recipientRow(shared, conversations.get(phone)!.id, phone))
  })
  await insertQueued(trx, rowsPerSend)
  const written = new Map<OutboundSend, MessageRow[]>(kept.map((send, index) => [send, rowsPerSend[index]]))
  return { optedOut, messages: sends.map((send) => written.get(send) ?? null) }
}
