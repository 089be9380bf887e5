import type { RouteRegistry } from '#core/contract/route_registry'
import type { JsonSchema } from '#core/contract/route_contract'
import type { JsonOf } from '#core/contract/typed_schema'
import { isoDateTimeSchema } from '#core/contract/schemas'
import { messageCategories, messageStatuses } from '#modules/messages/models/message'

const nullableDate = { type: ['string', 'null'], format: 'date-time' } as const
const nullableId = { type: ['string', 'null'] } as const

/** The Message resource; `messageResource` (models/message.ts) answers it. */
export const messageSchema = {
  type: 'object',
  description: 'A message, outgoing or incoming (docs/sending.md)',
  required: ['id', 'conversationId', 'direction', 'category', 'phone', 'body', 'encoding', 'segments', 'status', 'attempts', 'createdAt'],
  properties: {
    id: { type: 'string' },
    conversationId: { type: 'string' },
    direction: { enum: ['out', 'in'] },
    category: { enum: [...messageCategories] },
    phone: { type: 'string', description: 'E.164' },
    body: { type: 'string' },
    encoding: { enum: ['gsm7', 'ucs2'] },
    segments: { type: 'integer' },
    status: { enum: [...messageStatuses] },
    attempts: { type: 'integer' },
    errorCode: { type: ['string', 'null'], description: 'Why it failed or was cancelled' },
    holdReason: { enum: ['sim_cadence', 'sim_rate', null] },
    heldUntil: nullableDate,
    deviceId: { type: ['string', 'null'] },
    simSlot: { enum: [0, 1, null] },
    scheduledAt: nullableDate,
    campaignId: { ...nullableId, description: 'The campaign that queued it' },
    createdAt: isoDateTimeSchema,
    orderedAt: {
      ...nullableDate,
      description:
        'When it was handed to a phone (deviceId, simSlot): a queued message with orderedAt waits for that phone to accept ' +
        'the order. Null while it waits in the queue, and cleared when an attempt fails or the order goes back to the queue',
    },
    sentAt: nullableDate,
    deliveredAt: nullableDate,
    failedAt: nullableDate,
  },
} as const
export type MessageResource = JsonOf<typeof messageSchema>

/** The answer of a send: the queued messages, one per number (`message` is the Message schema or its reference). */
export function acceptedSchema<const M extends JsonSchema>(message: M) {
  return { type: 'object', required: ['accepted'], properties: { accepted: { type: 'array', items: message } } } as const
}
export type AcceptedMessages = JsonOf<ReturnType<typeof acceptedSchema<typeof messageSchema>>>

/** The module's resource as published in the OpenAPI document. */
export function messageSchemas(registry: RouteRegistry) {
  return { message: registry.addSchema('Message', messageSchema) }
}
