import type { Broadcastable } from '@boringnode/transmit/types'
import type { MessageChange } from '#modules/messages/services/message_changes'

/** The Transmit channel signed-in dashboards subscribe to for messages' changes. */
export const MESSAGES_CHANNEL = 'messages'

/** Entries per broadcast: a page that sees `more` reads again instead of matching ids. */
export const LIVE_ENTRIES = 100

/**
 * Mirrors each batch of message changes on the dashboards' live stream as one broadcast, built
 * from what the batch returned: ids, conversation, direction and status only. Pages read the
 * rest from the API.
 */
export function broadcastMessageChanges(
  emitter: { on(name: 'messages:changed', listener: (event: { changes: MessageChange[] }) => void): unknown },
  transmit: () => Promise<{ broadcast(channel: string, payload?: Broadcastable): void }>,
  now: () => Promise<Date>
) {
  emitter.on('messages:changed', async ({ changes }) => {
    const at = (await now()).toISOString()
    ;(await transmit()).broadcast(MESSAGES_CHANNEL, {
      type: 'messages.changed',
      at,
      messages: changes.slice(0, LIVE_ENTRIES).map((change) => ({
        id: String(change.id),
        conversationId: String(change.conversationId),
        direction: change.direction,
        status: change.status,
      })),
      more: changes.length > LIVE_ENTRIES,
    })
  })
}
