import type { RouteRegistry } from '#core/contract/route_registry'
import type { JsonSchema } from '#core/contract/route_contract'
import type { JsonOf } from '#core/contract/typed_schema'
import { isoDateTimeSchema } from '#core/contract/schemas'
import { publicEventCatalogue } from '#core/events/public_events'

/** Attempts per delivery (docs/webhooks.md, Attempts, retries and giving up). */
export const MAX_ATTEMPTS = 5

/*
 * The schemas are made when the routes are, not when this file loads: they list the public
 * events, which the modules register as they start.
 */

/** The Webhook resource; `Webhook.toResource` answers it. */
const webhookSchema = () => ({
  type: 'object',
  required: ['id', 'name', 'url', 'method', 'events', 'headers', 'active', 'consecutiveFailures', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string', minLength: 1, maxLength: 80 },
    url: { type: 'string', maxLength: 2000 },
    method: { enum: ['POST', 'PUT', 'PATCH'] },
    events: { type: 'array', minItems: 1, items: { enum: publicEventCatalogue.names() } },
    headers: {
      type: 'array',
      maxItems: 10,
      items: {
        type: 'object',
        required: ['name', 'value'],
        properties: { name: { type: 'string', maxLength: 100 }, value: { type: 'string', maxLength: 500 } },
      },
    },
    active: { type: 'boolean' },
    consecutiveFailures: { type: 'integer', description: 'Deliveries given up in a row; at 100 the webhook is switched off' },
    createdAt: isoDateTimeSchema,
    updatedAt: isoDateTimeSchema,
    disabledAt: { ...isoDateTimeSchema, description: 'Present when the gateway switched the webhook off after repeated failures' },
  },
}) as const
export type WebhookResource = JsonOf<ReturnType<typeof webhookSchema>>

/** A delivery log entry; `WebhookDelivery.toResource` answers it. */
const deliverySchema = () => ({
  type: 'object',
  required: ['id', 'deliveryId', 'createdAt', 'event', 'target', 'webhookId', 'ruleId', 'status', 'attempts', 'maxAttempts'],
  properties: {
    id: { type: 'string', description: 'Log entry identifier (for replay)' },
    deliveryId: { type: 'string', description: 'X-Delivery-Id of every attempt of this delivery' },
    createdAt: isoDateTimeSchema,
    event: { type: 'string', description: 'Event name; rule.triggered for a rule call' },
    target: {
      type: 'object',
      required: ['type', 'id', 'name'],
      properties: { type: { enum: ['webhook', 'rule'] }, id: { type: ['string', 'null'] }, name: { type: ['string', 'null'] } },
    },
    webhookId: { type: ['string', 'null'] },
    ruleId: { type: ['string', 'null'] },
    status: { enum: ['pending', 'success', 'failed'], description: 'success is shown Delivered' },
    attempts: { type: 'integer', minimum: 0, maximum: MAX_ATTEMPTS },
    maxAttempts: { const: MAX_ATTEMPTS },
    httpStatus: { type: ['integer', 'null'], description: "Status of the receiver's last answer" },
    durationMs: { type: ['integer', 'null'], description: 'Duration of the last attempt' },
    detail: {
      type: ['string', 'null'],
      description:
        'The network error, else the first 500 characters of the answer, else what a bare status means ' +
        '(401/403: a signature problem; 3xx: a redirect, never followed), else the time of the next attempt',
    },
    error: { type: ['string', 'null'], description: 'Why the last attempt got no answer' },
    answer: { type: ['string', 'null'], description: 'First 500 characters of the last answer' },
    nextAttemptAt: { type: ['string', 'null'], format: 'date-time' },
    completedAt: { type: ['string', 'null'], format: 'date-time' },
  },
}) as const
export type WebhookDeliveryResource = JsonOf<ReturnType<typeof deliverySchema>>

/** `FailingDeliveries.summary` answers it. */
const failingDeliveriesSchema = {
  type: 'object',
  required: ['retrying', 'failedRecently', 'switchedOff', 'since'],
  properties: {
    retrying: { type: 'integer', minimum: 0, description: 'Deliveries whose attempts failed so far, waiting for their next attempt' },
    failedRecently: { type: 'integer', minimum: 0, description: 'Deliveries created since `since` (the last 24 hours) that ended failed' },
    switchedOff: { type: 'integer', minimum: 0, description: 'Webhooks the gateway switched off after repeated failures (Disabled after failures)' },
    since: { ...isoDateTimeSchema, description: 'Start of the 24-hour window of failedRecently' },
  },
} as const
export type FailingDeliveriesAnswer = JsonOf<typeof failingDeliveriesSchema>

/** The event catalogue as `GET /webhooks/events` answers it. */
const eventListSchema = () => ({
  type: 'object',
  required: ['data'],
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'family', 'description'],
        properties: {
          name: { enum: publicEventCatalogue.names() },
          family: { type: 'string', description: 'The group it is listed under: Messages, Phones, Campaigns...' },
          description: { type: 'string' },
        },
      },
    },
  },
}) as const
export type WebhookEventList = JsonOf<ReturnType<typeof eventListSchema>>

/** A new webhook with its signing secret, answered once; `webhook` is the Webhook schema or its reference. */
export function webhookWithSecretSchema<const W extends JsonSchema>(webhook: W) {
  return { type: 'object', required: ['webhook', 'secret'], properties: { webhook, secret: { type: 'string' } } } as const
}
export type WebhookWithSecret = JsonOf<ReturnType<typeof webhookWithSecretSchema<ReturnType<typeof webhookSchema>>>>

/** The module's answers as published in the OpenAPI document. */
export function webhookSchemas(registry: RouteRegistry) {
  return {
    webhook: registry.addSchema('Webhook', webhookSchema()),
    delivery: registry.addSchema('WebhookDelivery', deliverySchema()),
    failingDeliveries: failingDeliveriesSchema,
    eventList: eventListSchema(),
  }
}
