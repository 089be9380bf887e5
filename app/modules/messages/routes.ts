import { messagePermissions } from '#modules/messages/permissions'
import { defineRoutes } from '#core/contract/route_contract'
import { pageOf } from '#core/contract/schemas'
import type { RouteRegistry } from '#core/contract/route_registry'
import { messageSchemas } from '#modules/messages/schemas'
import { listMessagesValidator } from '#modules/messages/validators/message_validators'
import { pageQueryValidator } from '#core/pagination/keyset_page'
import { conversationPermissions } from '#modules/conversations/public'

const MessagesController = () => import('#modules/messages/controllers/messages_controller')

/**
 * Reading, retrying and deleting messages, and a conversation's messages (the conversations
 * module serves the conversations themselves; its tag and read permission are used here). The
 * send, `POST /api/v1/messages`, is the sending module's.
 */
export function messageRoutes(registry: RouteRegistry) {
  registry.describeTag('Messages', 'Send SMS and read what was sent and received')
  const { message } = messageSchemas(registry)
  const messageId = { id: 'Message identifier' }

  return defineRoutes([
    {
      method: 'GET',
      path: '/api/v1/messages',
      operationId: 'listMessages',
      summary: 'Messages, newest first',
      tag: 'Messages',
      access: messagePermissions['messages.read'],
      query: listMessagesValidator,
      answer: { status: 200, description: 'A page of messages', schema: pageOf(message) },
      errors: ['INVALID_PHONE'],
      handler: [MessagesController, 'index'],
    },
    {
      method: 'GET',
      path: '/api/v1/messages/:id',
      operationId: 'getMessage',
      summary: 'One message',
      tag: 'Messages',
      access: messagePermissions['messages.read'],
      params: messageId,
      answer: { status: 200, description: 'The message resource', schema: message },
      errors: ['NOT_FOUND'],
      handler: [MessagesController, 'show'],
    },
    {
      method: 'POST',
      path: '/api/v1/messages/:id/retry',
      operationId: 'retryMessage',
      summary: 'Retry a failed message',
      description: 'The message goes back to queued with its attempts restarted. Any other status: 409 MESSAGE_NOT_FAILED.',
      tag: 'Messages',
      access: messagePermissions['messages.send'],
      params: messageId,
      answer: { status: 200, description: 'The message, queued again', schema: message },
      errors: ['NOT_FOUND', 'MESSAGE_NOT_FAILED'],
      handler: [MessagesController, 'retry'],
    },
    {
      method: 'DELETE',
      path: '/api/v1/messages/:id',
      operationId: 'deleteMessage',
      summary: 'Delete a message (emits message.deleted)',
      tag: 'Messages',
      access: messagePermissions['messages.delete'],
      params: messageId,
      answer: { status: 204, description: 'Deleted' },
      errors: ['NOT_FOUND'],
      handler: [MessagesController, 'destroy'],
    },
    {
      method: 'GET',
      path: '/api/v1/conversations/:id/messages',
      operationId: 'listConversationMessages',
      summary: "A conversation's messages, newest first",
      tag: 'Conversations',
      access: conversationPermissions['conversations.read'],
      query: pageQueryValidator,
      params: { id: 'Conversation identifier' },
      answer: { status: 200, description: 'A page of messages', schema: pageOf(message) },
      errors: ['NOT_FOUND'],
      handler: [MessagesController, 'ofConversation'],
    },
  ])
}

/** The module's contracts as typed, for its handlers' input (`routeInputs<MessageRoutes>()`). */
export type MessageRoutes = ReturnType<typeof messageRoutes>
