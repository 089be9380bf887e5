import type { JsonSchema } from '#core/contract/route_contract'
import type { RouteRegistry } from '#core/contract/route_registry'
import type { JsonOf } from '#core/contract/typed_schema'
import { isoDateTimeSchema } from '#core/contract/schemas'
import { messageCategories, messageStatuses, type MessageStatus } from '#modules/messages/public'

const count = { type: 'integer', minimum: 0 } as const

/** A closed object whose every field is required, typed so `JsonOf` reads its fields. */
type ClosedObject<P> = {
  type: 'object'
  description?: string
  required: readonly (keyof P)[]
  additionalProperties: false
  properties: P
}

function object<const P extends Record<string, JsonSchema>>(properties: P, description?: string): ClosedObject<P> {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    required: Object.keys(properties) as (keyof P)[],
    additionalProperties: false,
    properties,
  }
}

/** The fields every statistics answer starts with: the range actually counted. */
const rangeFields = {
  from: { ...isoDateTimeSchema, description: 'Start of the first bucket (the range counted, UTC)' },
  to: { ...isoDateTimeSchema, description: 'End of the last bucket (UTC)' },
  interval: { enum: ['day', 'hour'] },
  timezone: { type: 'string', description: 'Time zone of the buckets' },
} as const
const start = { ...isoDateTimeSchema, description: 'UTC instant of the local start of the bucket' } as const
const bucketsOf = <const F extends Record<string, JsonSchema>>(fields: F) =>
  ({
    type: 'array',
    description: 'Every local day or hour of the range, oldest first, empty ones included',
    items: object({ start, ...fields }),
  }) as const

/**
 * The seven statistics answers (docs/statistics.md), as published in the OpenAPI document; each
 * service's answer is typed by its schema (`StatisticsAnswers`).
 */
export function statisticsSchemas(registry: RouteRegistry) {
  const outCounts = object(
    Object.fromEntries(messageStatuses.map((status) => [status, count])) as { [S in MessageStatus]: typeof count },
    'Messages sent from the gateway, by their current status'
  )
  const inCounts = object({ received: count }, 'Messages the phones received')
  const counts = registry.addSchema('MessageVolumeCounts', object({ out: outCounts, in: inCounts }))
  const volume = registry.addSchema(
    'MessageVolume',
    object({ ...rangeFields, buckets: bucketsOf({ out: outCounts, in: inCounts }), totals: counts })
  )
  const deliveryFields = {
    delivered: count,
    failed: count,
    sent: { ...count, description: 'Sent, no delivery report (yet)' },
    rate: {
      type: ['number', 'null'],
      minimum: 0,
      maximum: 1,
      description: 'delivered / (delivered + failed + sent), 4 decimals; null when all three are 0',
    },
  } as const
  const delivery = registry.addSchema('DeliveryRate', object(deliveryFields))
  const breakdown = registry.addSchema(
    'MessageVolumeBreakdown',
    object({
      ...rangeFields,
      groupBy: { enum: ['device', 'sim', 'campaign', 'category'] },
      groups: {
        type: 'array',
        description:
          'Every group with messages in the range, the busiest first: by its messages of both directions (outbound of ' +
          'any status plus inbound) as filtered, so direction=out ranks by outbound alone; equal ones in the order of their key',
        items: object({
          key: {
            type: 'object',
            additionalProperties: false,
            description: 'The group: deviceId (device), deviceId and simSlot (sim), campaignId (campaign) or category; null: none yet or not a campaign',
            properties: {
              deviceId: { type: ['string', 'null'] },
              simSlot: { type: ['integer', 'null'] },
              campaignId: { type: ['string', 'null'] },
              category: { enum: [...messageCategories] },
            },
          },
          totals: counts,
          delivery,
        }),
      },
    })
  )
  const deliveryRate = registry.addSchema('DeliveryRateOverTime', object({ ...rangeFields, buckets: bucketsOf(deliveryFields), totals: delivery }))
  const failures = registry.addSchema(
    'FailureReasons',
    object({
      ...rangeFields,
      buckets: bucketsOf({ failed: count }),
      totals: object({
        failed: count,
        reasons: {
          type: 'array',
          description: 'Error codes of the failed messages, the most frequent first',
          items: object({ errorCode: { type: ['string', 'null'], description: 'null: failed without a code' }, count }),
        },
      }),
    })
  )
  const latencyRange = {
    from: { type: 'number', minimum: 0, description: 'Seconds, included' },
    to: { type: ['number', 'null'], description: 'Seconds, excluded; null: a day or more' },
  } as const
  const quantile = { oneOf: [object(latencyRange), { type: 'null' }], description: 'The histogram bucket holding the quantile; null when count is 0' } as const
  const figures = { count, p50: quantile, p95: quantile } as const
  const stageTotals = object({
    ...figures,
    histogram: { type: 'array', description: 'Every fixed latency bucket, fastest first', items: object({ ...latencyRange, count }) },
  })
  const latency = registry.addSchema(
    'MessageLatency',
    object({
      ...rangeFields,
      buckets: bucketsOf({ toSent: object(figures), toDelivered: object(figures) }),
      totals: object({ toSent: stageTotals, toDelivered: stageTotals }),
    })
  )
  const linkClicks = registry.addSchema(
    'LinkClicksOverTime',
    object({
      ...rangeFields,
      buckets: bucketsOf({ clicks: count }),
      totals: object({ clicks: count }),
      links: {
        type: 'array',
        description: 'The links clicked most in the range, the most clicked first (at most `limit`)',
        items: object({
          id: { type: 'string' },
          code: { type: 'string' },
          shortUrl: { type: 'string' },
          url: { type: 'string' },
          clicks: count,
        }),
      },
    })
  )
  const optOuts = registry.addSchema(
    'OptOutsOverTime',
    object({
      ...rangeFields,
      buckets: bucketsOf({ optedOut: count, optedIn: count }),
      totals: object({ optedOut: count, optedIn: count }),
    })
  )
  return { volume, breakdown, deliveryRate, failures, latency, linkClicks, optOuts }
}

type Schemas = ReturnType<typeof statisticsSchemas>

/** Each statistics answer as its schema describes it. */
export type StatisticsAnswers = { [K in keyof Schemas]: JsonOf<Schemas[K]> }
