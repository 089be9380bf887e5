import type { RouteRegistry } from '#core/contract/route_registry'
import type { JsonSchema } from '#core/contract/route_contract'
import type { JsonOf } from '#core/contract/typed_schema'
import { isoDateTimeSchema } from '#core/contract/schemas'
import { messageCategories, messageStatuses, type MessageCategory, type MessageDirection, type MessageStatus } from '#modules/messages/message_values'

const nullableDate = { type: ['string', 'null'], format: 'date-time' } as const
const nullableId = { type: ['string', 'null'] } as const

/** The Message resource; `messageResource` (below) answers it from a row. */
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

/** A messages row as SQLite holds it (snake_case columns; dates as the gateway's ISO UTC text). */
export interface MessageRow {
  id: number
  conversation_id: number
  direction: MessageDirection
  category: MessageCategory
  phone: string
  body: string
  encoding: 'gsm7' | 'ucs2'
  segments: number
  campaign_id: number | null
  status: MessageStatus
  attempts: number
  error_code: string | null
  hold_reason: 'sim_cadence' | 'sim_rate' | null
  held_until: string | null
  device_id: string | null
  sim_slot: number | null
  scheduled_at: string | null
  created_at: string
  ordered_at: string | null
  sent_at: string | null
  delivered_at: string | null
  failed_at: string | null
}

/**
 * The Message resource of a row as stored, whether just written or read back: the one mapping
 * (stored dates are already the ISO text the API shows, so nothing is parsed).
 */
export function messageResource(row: MessageRow): MessageResource {
  return {
    id: String(row.id),
    conversationId: idText(row.conversation_id),
    direction: row.direction,
    category: row.category,
    phone: row.phone,
    body: row.body,
    encoding: row.encoding,
    segments: row.segments,
    campaignId: idText(row.campaign_id),
    status: row.status,
    attempts: row.attempts,
    errorCode: row.error_code,
    holdReason: row.hold_reason,
    heldUntil: row.held_until,
    deviceId: row.device_id,
    // Slot 0 or 1: the only ones a send, a campaign or a phone's report can name.
    simSlot: row.sim_slot as 0 | 1 | null,
    scheduledAt: row.scheduled_at,
    createdAt: row.created_at,
    orderedAt: row.ordered_at,
    sentAt: row.sent_at,
    deliveredAt: row.delivered_at,
    failedAt: row.failed_at,
  }
}

/** A resource field's column: the same name in snake case. */
export const storedColumn = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)

export const idText = <T extends number | null>(value: T) => (value === null ? null : String(value)) as T extends number ? string : null

/** The answer of a send: the queued messages, one per number (`message` is the Message schema or its reference). */
export function acceptedSchema<const M extends JsonSchema>(message: M) {
  return { type: 'object', required: ['accepted'], properties: { accepted: { type: 'array', items: message } } } as const
}
export type AcceptedMessages = JsonOf<ReturnType<typeof acceptedSchema<typeof messageSchema>>>

/** The module's resource as published in the OpenAPI document. */
export function messageSchemas(registry: RouteRegistry) {
  return { message: registry.addSchema('Message', messageSchema) }
}
