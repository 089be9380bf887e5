import type { RouteRegistry } from '#core/contract/route_registry'
import type { JsonOf } from '#core/contract/typed_schema'
import { isoDateTimeSchema } from '#core/contract/schemas'
import { conversationStates, messageCategories } from '#modules/conversations/conversation_values'

const nullableId = { type: ['string', 'null'] } as const

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

/** The module's resource as published in the OpenAPI document. */
export function conversationSchemas(registry: RouteRegistry) {
  return { conversation: registry.addSchema('Conversation', conversationSchema) }
}
