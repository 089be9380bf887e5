import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { countSegments } from '#core/sms/segment_counter'
import { recordConversationActivity } from '#modules/conversations/public'
import { announceChanges, type MessageChange } from '#modules/messages/services/message_changes'
import { transaction } from '#core/database/transaction'
import { forcedDeviceId, insertQueued } from '#modules/messages/services/message_inserts'

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
      const forced = forcedDeviceId(batch.deviceId)
      // Each message its own group: a campaign's texts are rendered per recipient.
      const ids = await insertQueued(
        trx,
        accepted.map(({ send }) => {
          const { encoding, segments } = countSegments(send.body)
          return [
            {
              conversation_id: conversations.get(send.phone)!.id,
              phone: send.phone,
              category: 'campaign' as const,
              body: send.body,
              encoding,
              segments,
              device_id: batch.deviceId,
              sim_slot: batch.simSlot,
              forced_device_id: forced,
              forced_sim_slot: batch.simSlot,
              scheduled_at: null,
              campaign_id: batch.campaignId,
              created_at: at,
            },
          ]
        })
      )
      accepted.forEach(({ send, index }, position) => {
        results[index] = { messageId: ids[position] }
        changes.push({ id: ids[position], conversationId: conversations.get(send.phone)!.id, direction: 'out', status: 'queued', campaignId: batch.campaignId })
      })
      await inTransaction(trx, results)
      return results
    })
    if (changes.length) {
      await emitter.emit('messages:queued', { count: changes.length })
      await announceChanges(changes)
    }
    return results
  }

  /** The current status of each of these messages (a campaign reconciling its recipients); a deleted one is absent. */
  async statusesOf(messageIds: number[]): Promise<Map<number, { status: string; errorCode: string | null }>> {
    const statuses = new Map<number, { status: string; errorCode: string | null }>()
    for (let start = 0; start < messageIds.length; start += 5000) {
      const rows = await db.rawQuery(`SELECT id, status, error_code FROM messages WHERE id IN (SELECT value FROM json_each(?))`, [
        JSON.stringify(messageIds.slice(start, start + 5000)),
      ])
      for (const row of rows) statuses.set(row.id, { status: row.status, errorCode: row.error_code })
    }
    return statuses
  }

  /** A campaign's messages not handed to a phone yet, and those it paused: what pause, resume and cancel act on. */
  async waitingOf(campaignId: number, statuses: Array<'queued' | 'pending_quota_exceeded' | 'paused'>): Promise<number[]> {
    const rows = await db
      .from('messages')
      .where('campaign_id', campaignId)
      .whereIn('status', statuses)
      .whereNull('ordered_at')
      .select('id')
    return rows.map((row) => row.id)
  }

  /** Messages of the campaign still to be sent (queued or waiting for a quota): the backlog the throttle bounds. */
  async backlogOf(campaignId: number): Promise<number> {
    const [row] = await db.rawQuery(`SELECT COUNT(*) AS n FROM messages WHERE campaign_id = ? AND status IN ('queued', 'pending_quota_exceeded')`, [campaignId])
    return Number(row.n)
  }
}
