import { conversationPermissions } from '#modules/conversations/permissions'
import { defineRoutes } from '#core/contract/route_contract'
import { pageOf } from '#core/contract/schemas'
import type { RouteRegistry } from '#core/contract/route_registry'
import { conversationSchemas } from '#modules/conversations/schemas'
import { listConversationsValidator, updateConversationValidator } from '#modules/conversations/validators/conversation_validators'

const ConversationsController = () => import('#modules/conversations/controllers/conversations_controller')

/**
 * Conversations: the list, one, and its changes. A conversation's messages
 * (`GET /api/v1/conversations/{id}/messages`) are listed by the messages module, which builds on
 * this one.
 */
export function conversationRoutes(registry: RouteRegistry) {
  registry.describeTag('Conversations', 'One per number, created by its first message either way')
  const { conversation, conversationListItem } = conversationSchemas(registry)
  const conversationId = { id: 'Conversation identifier' }

  return defineRoutes([
    {
      method: 'GET',
      path: '/api/v1/conversations',
      operationId: 'listConversations',
      summary: 'Conversations, latest activity first',
      tag: 'Conversations',
      access: conversationPermissions['conversations.read'],
      query: listConversationsValidator,
      answer: { status: 200, description: 'A page of conversations', schema: pageOf(conversationListItem) },
      handler: [ConversationsController, 'index'],
    },
    {
      method: 'GET',
      path: '/api/v1/conversations/:id',
      operationId: 'getConversation',
      summary: 'One conversation',
      tag: 'Conversations',
      access: conversationPermissions['conversations.read'],
      params: conversationId,
      answer: { status: 200, description: 'The conversation', schema: conversation },
      errors: ['NOT_FOUND'],
      handler: [ConversationsController, 'show'],
    },
    {
      method: 'PATCH',
      path: '/api/v1/conversations/:id',
      operationId: 'updateConversation',
      summary: 'Pin, archive, assign, or mark a conversation read',
      tag: 'Conversations',
      access: conversationPermissions['conversations.change'],
      body: updateConversationValidator,
      params: conversationId,
      answer: { status: 200, description: 'The conversation', schema: conversation },
      errors: ['NOT_FOUND'],
      handler: [ConversationsController, 'update'],
    },
  ])
}

/** The module's contracts as typed, for its handlers' input (`routeInputs<ConversationRoutes>()`). */
export type ConversationRoutes = ReturnType<typeof conversationRoutes>
