import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { recordConversationActivity } from '#modules/conversations/public'
import { announceQueued, type MessageChange } from '#modules/messages/services/message_changes'
import { transaction } from '#core/database/transaction'
import { insertQueued, recipientRow, sharedColumns } from '#modules/messages/stores/message_inserts'
import type { MessageStore } from '#modules/messages/stores/message_store'

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
 * records each row's message atomically with it: a crash leaves both or neither. The reads below
 * follow the messages of one campaign (its waiting messages, backlog and statuses).
 */
export class BulkSends {
  constructor(private messages: MessageStore) {}

  async queueMany(batch: BulkBatch, inTransaction: (trx: TransactionClientContract, results: BulkSendResult[]) => Promise<void>): Promise<BulkSendResult[]> {
    const at = batch.at.toISOString()
    const changes: MessageChange[] = []
    const results = await transaction(async (trx) => {
      const conversations = await recordConversationActivity(
        trx,
        batch.sends.map((send) => ({ phone: send.phone, direction: 'out' as const, category: 'campaign' as const, at }))
      )
      const results: BulkSendResult[] = batch.sends.map((send) =>
        conversations.get(send.phone)?.optedOut ? { refused: 'CONTACT_BLACKLISTED' as const } : { messageId: 0 }
      )
      const accepted = batch.sends.flatMap((send, index) => ('messageId' in results[index] ? [{ send, index }] : []))
      // Each message its own group: a campaign's texts are rendered per recipient.
      const ids = await insertQueued(
        trx,
        accepted.map(({ send }) => {
          const { deviceId, simSlot, campaignId } = batch
          const shared = sharedColumns({ category: 'campaign', body: send.body, deviceId, simSlot, scheduledAt: null, campaignId, at })
          return [recipientRow(shared, conversations.get(send.phone)!.id, send.phone)]
        })
      )
      accepted.forEach(({ send, index }, position) => {
        results[index] = { messageId: ids[position] }
        changes.push({ id: ids[position], conversationId: conversations.get(send.phone)!.id, direction: 'out', status: 'queued', campaignId: batch.campaignId })
      })
      await inTransaction(trx, results)
      return results
    })
    await announceQueued(changes)
    return results
  }

  /** The current status of each of these messages (a campaign reconciling its recipients); a deleted one is absent. */
  statusesOf(messageIds: number[]) {
    return this.messages.statusesOf(messageIds)
  }

  /**
   * A campaign's messages not handed to a phone yet, and those it paused: what pause, resume and
   * cancel act on; `handedOut` adds its queued ones already handed to a phone, of which a cancel
   * takes back those the phone has not accepted where its kind can (`MessageLedger.cancel`).
   */
  waitingOf(campaignId: number, statuses: Array<'queued' | 'pending_quota_exceeded' | 'paused'>, options: { handedOut?: boolean } = {}) {
    return this.messages.waitingOf(campaignId, statuses, options)
  }

  /** Messages of the campaign still to be sent (queued or waiting for a quota): the backlog the throttle bounds. */
  backlogOf(campaignId: number) {
    return this.messages.backlogOf(campaignId)
  }
}
