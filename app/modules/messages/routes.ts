import { messagePermissions } from '#modules/messages/permissions'
import { defineRoutes } from '#core/contract/route_contract'
import { pageOf } from '#core/contract/schemas'
import type { RouteRegistry } from '#core/contract/route_registry'
import { acceptedSchema, messageSchemas } from '#modules/messages/schemas'
import { sendValidator, type SendCheckMeta } from '#modules/messages/validators/send_validator'
import { listMessagesValidator } from '#modules/messages/validators/message_validators'
import { pageQueryValidator } from '#core/pagination/keyset_page'
import { conversationPermissions } from '#modules/conversations/public'

const MessagesController = () => import('#modules/messages/controllers/messages_controller')

/**
 * Sending and reading messages, and a conversation's messages (the conversations module serves
 * the conversations themselves; its tag and read permission are used here).
 */
export function messageRoutes(registry: RouteRegistry, sendMeta: () => Promise<SendCheckMeta>) {
  registry.describeTag('Messages', 'Send SMS and read what was sent and received')
  const { message } = messageSchemas(registry)
  const messageId = { id: 'Message identifier' }

  return defineRoutes([
    {
      method: 'POST',
      path: '/api/v1/messages',
      operationId: 'sendMessages',
      summary: 'Send an SMS to one number or up to 500',
      description:
        'Queues one message per number, in the order of `to`, in one transaction: one invalid or opted-out number refuses ' +
        'the whole request and nothing is queued. A repeated number gets one message per occurrence. An offline phone or ' +
        'an exhausted SIM quota never causes an error: the message is accepted and the problem shows in its status. ' +
        'With Idempotency-Key, the same key and body within 24 hours answer the original answer (Idempotency-Replayed: ' +
        'true) and queue nothing.',
      tag: 'Messages',
      access: messagePermissions['messages.send'],
      body: sendValidator,
      validationMeta: sendMeta,
      headers: {
        'Idempotency-Key': { description: '8 to 128 characters; belongs to the caller; kept 24 hours', schema: { type: 'string', minLength: 8, maxLength: 128 } },
      },
      answer: {
        status: 202,
        description: 'Accepted: one queued message per number, as submitted (body, encoding and segments before text options)',
        schema: acceptedSchema(message),
      },
      errors: ['INVALID_PHONE', 'EMPTY_BODY', 'CONTACT_BLACKLISTED', 'SCHEDULED_AT_IN_PAST', 'IDEMPOTENCY_CONFLICT'],
      handler: [MessagesController, 'send'],
    },
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
