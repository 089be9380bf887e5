import emitter from '@adonisjs/core/services/emitter'
import type { MessageStatus } from '#modules/messages/models/message'

/** One message a batch changed: which one, where, and its status now (never its number or text). */
export interface MessageChange {
  id: number
  conversationId: number
  direction: 'in' | 'out'
  status: MessageStatus | 'deleted'
  /** The campaign that queued it (absent or null: none), so a campaign follows only its own. */
  campaignId?: number | null
}

/** A row as the ledger's statements return it (`RETURNING ${CHANGED_COLUMNS}`). */
export interface ChangedRow {
  id: number
  conversation_id: number
  direction: 'in' | 'out'
  status: MessageStatus
  campaign_id: number | null
}

/** The columns each write returns, so the batch knows what it changed without reading again. */
export const CHANGED_COLUMNS = 'id, conversation_id, direction, status, campaign_id'

export function changesOf(rows: ChangedRow[]): MessageChange[] {
  return rows.map((row) => ({ id: row.id, conversationId: row.conversation_id, direction: row.direction, status: row.status, campaignId: row.campaign_id }))
}

/**
 * One announcement per batch, whatever its size: the live stream (listeners/live_messages.ts)
 * and anyone else who shows messages as they change listen to it.
 */
export async function announceChanges(changes: MessageChange[]): Promise<void> {
  if (changes.length) await emitter.emit('messages:changed', { changes })
}

declare module '@adonisjs/core/types' {
  interface EventsList {
    /** Messages were queued, received, changed status or were deleted (one event per batch). */
    'messages:changed': { changes: MessageChange[] }
  }
}
