import { defineLiveChannel, type LivePayload, type LiveTransmit } from '#core/live/live_channels'
import type { MessageChange } from '#modules/messages/services/message_changes'
import { messageStatuses } from '#modules/messages/message_values'

/** Entries per broadcast: a page that sees `more` reads again instead of matching ids. */
export const LIVE_ENTRIES = 100

/** The channel signed-in dashboards subscribe to for messages' changes (docs/live-channels.md, `messages`). */
export const messagesChannel = defineLiveChannel('messages', {
  type: 'object',
  required: ['type', 'at', 'messages', 'more'],
  additionalProperties: false,
  properties: {
    type: { const: 'messages.changed' },
    at: { type: 'string', format: 'date-time', description: 'When the batch was written' },
    messages: {
      type: 'array',
      maxItems: LIVE_ENTRIES,
      items: {
        type: 'object',
        required: ['id', 'conversationId', 'direction', 'status'],
        additionalProperties: false,
        properties: {
          id: { type: 'string' },
          conversationId: { type: 'string' },
          direction: { enum: ['out', 'in'] },
          status: {
            enum: [...messageStatuses, 'deleted'],
            description: 'Its status after the batch (an inbound SMS is `delivered`), or `deleted`',
          },
        },
      },
    },
    more: { type: 'boolean', description: 'The batch changed more than the messages listed: read the list again rather than match ids' },
  },
} as const)

/** The channel's name. */
export const MESSAGES_CHANNEL = messagesChannel.name

export type LiveMessagesChanged = LivePayload<typeof messagesChannel>

/**
 * Mirrors each batch of message changes on the dashboards' live stream as one broadcast, built
 * from what the batch returned: ids, conversation, direction and status only. Pages read the
 * rest from the API.
 */
export function broadcastMessageChanges(
  emitter: { on(name: 'messages:changed', listener: (event: { changes: MessageChange[] }) => void): unknown },
  transmit: () => Promise<LiveTransmit>,
  now: () => Promise<Date>
) {
  emitter.on('messages:changed', async ({ changes }) => {
    const at = (await now()).toISOString()
    messagesChannel.broadcast(await transmit(), {
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
