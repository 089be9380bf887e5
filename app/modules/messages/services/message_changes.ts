import emitter from '@adonisjs/core/services/emitter'
import type { MessageStatus } from '#modules/messages/message_values'

/** One message a batch changed: which one, where, and its status now (never its number or text). */
export interface MessageChange {
  id: number
  conversationId: number
  direction: 'in' | 'out'
  status: MessageStatus | 'deleted'
  /** The campaign that queued it (absent or null: none), so a campaign follows only its own. */
  campaignId?: number | null
}

/**
 * One announcement per batch, whatever its size: the live stream (listeners/live_messages.ts)
 * and anyone else who shows messages as they change listen to it.
 */
export async function announceChanges(changes: MessageChange[]): Promise<void> {
  if (changes.length) await emitter.emit('messages:changed', { changes })
}

/** Messages queued, or queued again: the dispatcher is woken, then the batch announced. */
export async function announceQueued(changes: MessageChange[]): Promise<void> {
  if (!changes.length) return
  await emitter.emit('messages:queued', { count: changes.length })
  await announceChanges(changes)
}

declare module '@adonisjs/core/types' {
  interface EventsList {
    /** New messages wait for a phone: the dispatcher wakes. */
    'messages:queued': { count: number }
    /** Messages were queued, received, changed status or were deleted (one event per batch). */
    'messages:changed': { changes: MessageChange[] }
  }
}
