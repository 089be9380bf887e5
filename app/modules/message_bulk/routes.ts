import { messagePermissions } from '#modules/messages/public'
import { defineRoutes } from '#core/contract/route_contract'
import { bulkMessagesValidator, MAX_BULK_IDS, MAX_BULK_MATCHES } from '#modules/message_bulk/validators/bulk_validators'
import { bulkOutcomeSchema } from '#modules/message_bulk/schemas'

const MessageBulkController = () => import('#modules/message_bulk/controllers/message_bulk_controller')

const chosen =
  `Either \`ids\` (1 to ${MAX_BULK_IDS}) or \`filter\` (the filters of GET /messages, q included: every message they match, ` +
  `in one request; more than ${MAX_BULK_MATCHES} is 422 TOO_MANY_MESSAGES and nothing changes). With dryRun: true, answers ` +
  'what would be done and changes nothing. One Activity entry with the counts.'

/**
 * Many messages at once (docs/sending.md, Many messages at once): one route per action, each
 * guarded by its single operation's permission, so whoever may delete or retry one message may
 * do it to many, and no one else.
 */
export function messageBulkRoutes() {
  return defineRoutes([
    {
      method: 'POST',
      path: '/api/v1/messages/bulk-delete',
      operationId: 'deleteMessages',
      summary: 'Delete many messages (each emits message.deleted)',
      description: `${chosen} Each message is deleted as DELETE /messages/{id} deletes one: one a phone holds and has not reported is taken back from it (the phone is told to drop it).`,
      tag: 'Messages',
      access: messagePermissions['messages.delete'],
      body: bulkMessagesValidator,
      answer: { status: 200, description: 'What was done; skipped.not_found: ids of no message, or deleted meanwhile', schema: bulkOutcomeSchema },
      errors: ['TOO_MANY_MESSAGES', 'INVALID_PHONE'],
      handler: [MessageBulkController, 'delete'],
    },
    {
      method: 'POST',
      path: '/api/v1/messages/bulk-retry',
      operationId: 'retryMessages',
      summary: 'Retry many failed messages',
      description: `${chosen} Each failed outgoing message goes back to queued with its attempts restarted, as POST /messages/{id}/retry does; any other is counted in skipped.not_failed, not refused.`,
      tag: 'Messages',
      access: messagePermissions['messages.send'],
      body: bulkMessagesValidator,
      answer: { status: 200, description: 'What was done; skipped.not_found: ids of no message; skipped.not_failed: not failed', schema: bulkOutcomeSchema },
      errors: ['TOO_MANY_MESSAGES', 'INVALID_PHONE'],
      handler: [MessageBulkController, 'retry'],
    },
  ])
}

/** The contracts as typed, for their handlers' input (`routeInputs<MessageBulkRoutes>()`). */
export type MessageBulkRoutes = ReturnType<typeof messageBulkRoutes>
