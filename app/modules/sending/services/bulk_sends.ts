import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { transaction } from '#core/database/transaction'
import { announceQueued, queueMessages, type MessageChange } from '#modules/messages/public'

/** One message of a bulk send: a number and its text, already rendered. */
export interface BulkSend {
  phone: string
  body: string
}

/** What became of one send, in the order given: its message, or why none was queued. */
export type BulkSendResult = { messageId: number } | { refused: 'CONTACT_BLACKLISTED' }

export interface BulkBatch {
  campaignId: number
  deviceId: string | null
  simSlot: number | null
  sends: BulkSend[]
  at: Date
}

/**
 * Queues many messages at once on behalf of a campaign (category campaign, campaignId set), each
 * conversation touched as any send does. Unlike an API send, an opted-out number refuses only its
 * own row. `inTransaction` runs inside the same transaction with the results, so the caller
 * records each row's message atomically with it: a crash leaves both or neither. What becomes of
 * those messages afterwards is read from the messages module (`MessageBacklog`).
 */
export class BulkSends {
  async queueMany(batch: BulkBatch, inTransaction: (trx: TransactionClientContract, results: BulkSendResult[]) => Promise<void>): Promise<BulkSendResult[]> {
    const at = batch.at.toISOString()
    const { deviceId, simSlot, campaignId } = batch
    const changes: MessageChange[] = []
    const results = await transaction(async (trx) => {
      // Each message its own send: a campaign's texts are rendered per recipient.
      const queued = await queueMessages(
        trx,
        batch.sends.map((send) => ({ numbers: [send.phone], body: send.body, category: 'campaign' as const, deviceId, simSlot, scheduledAt: null, campaignId, at })),
        'skip'
      )
      const results: BulkSendResult[] = queued.messages.map((messages) => {
        if (!messages) return { refused: 'CONTACT_BLACKLISTED' as const }
        const [message] = messages
        changes.push({ id: message.id, conversationId: message.conversation_id, direction: 'out', status: 'queued', campaignId })
        return { messageId: message.id }
      })
      await inTransaction(trx, results)
      return results
    })
    await announceQueued(changes)
    return results
  }
}
