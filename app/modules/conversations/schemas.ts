import type { RouteRegistry } from '#core/contract/route_registry'
import type { JsonOf } from '#core/contract/typed_schema'
import { isoDateTimeSchema } from '#core/contract/schemas'
import { conversationStates, messageCategories } from '#modules/conversations/conversation_values'

const nullableId = { type: ['string', 'null'] } as const

/** The longest preview of a conversation's last message in the list, in characters. */
export const PREVIEW_LENGTH = 60

/** The Conversation resource; `Conversation.toResource` (models/conversation.ts) answers it. */
export const conversationSchema = {
  type: 'object',
  description: 'All messages with one number. Carries no message text',
  required: ['id', 'phone', 'contactId', 'state', 'unreadCount', 'pinned', 'archived', 'assignedTo', 'category', 'createdAt', 'lastMessageAt'],
  properties: {
    id: { type: 'string' },
    phone: { type: 'string' },
    contactId: nullableId,
    state: { enum: [...conversationStates], description: 'awaiting_reply: the last message came in and is unanswered' },
    unreadCount: { type: 'integer' },
    pinned: { type: 'boolean' },
    archived: { type: 'boolean' },
    assignedTo: { ...nullableId, description: 'Dashboard account id' },
    category: { enum: [...messageCategories], description: 'Category of the last message sent' },
    createdAt: isoDateTimeSchema,
    lastMessageAt: isoDateTimeSchema,
  },
} as const
export type ConversationResource = JsonOf<typeof conversationSchema>

/**
 * A conversation as the list answers it: the resource and the first words of its last message
 * (the dashboard's rows). Only the list carries them: the resource and the conversations export
 * keep no message text.
 */
export const conversationListItemSchema = {
  ...conversationSchema,
  description: 'A conversation in the list, with the first words of its last message',
  required: [...conversationSchema.required, 'lastMessagePreview'],
  properties: {
    ...conversationSchema.properties,
    lastMessagePreview: {
      type: ['string', 'null'],
      description: `The first words of the last message, at most ${PREVIEW_LENGTH} characters, "…" when cut; null when the conversation has no message left`,
    },
  },
} as const
export type ConversationListItem = JsonOf<typeof conversationListItemSchema>

/** The module's resource as published in the OpenAPI document. */
export function conversationSchemas(registry: RouteRegistry) {
  return {
    conversation: registry.addSchema('Conversation', conversationSchema),
    conversationListItem: registry.addSchema('ConversationListItem', conversationListItemSchema),
  }
}
