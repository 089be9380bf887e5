import { defineRoutes } from '#core/contract/route_contract'
import type { RouteRegistry } from '#core/contract/route_registry'
import { acceptedSchema, messagePermissions, messageSchemas } from '#modules/messages/public'
import { sendValidator, type SendCheckMeta } from '#modules/sending/validators/send_validator'

const SendController = () => import('#modules/sending/controllers/send_controller')

/**
 * The send. Its tag, its permission (`messages.send`, which retries take too) and its answer's
 * Message schema are the messages module's: the API reads as one resource.
 */
export function sendingRoutes(registry: RouteRegistry, sendMeta: () => Promise<SendCheckMeta>) {
  const { message } = messageSchemas(registry)

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
      handler: [SendController, 'send'],
    },
  ])
}

/** The module's contracts as typed, for its handler's input (`routeInputs<SendingRoutes>()`). */
export type SendingRoutes = ReturnType<typeof sendingRoutes>
