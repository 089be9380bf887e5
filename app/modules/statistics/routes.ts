import { defineRoutes } from '#core/contract/route_contract'
import { isoDateTimeSchema } from '#core/contract/schemas'
import type { RouteRegistry } from '#core/contract/route_registry'
import { messageStatuses } from '#modules/messages/public'
import { statisticsPermissions } from '#modules/statistics/permissions'
import { DEFAULT_RANGE_DAYS, MAX_RANGE_DAYS } from '#modules/statistics/services/message_volume_statistics'
import { messageVolumeValidator } from '#modules/statistics/validators/statistics_validators'

const StatisticsController = () => import('#modules/statistics/controllers/statistics_controller')

const count = { type: 'integer', minimum: 0 }

/** Read-only figures for the dashboard and integrations (docs/statistics.md). */
export function statisticsRoutes(registry: RouteRegistry) {
  registry.describeTag('Statistics', 'Message volume over time, per local day or hour (docs/statistics.md)')
  const outCounts = {
    type: 'object',
    description: 'Messages sent from the gateway, by their current status',
    required: [...messageStatuses],
    additionalProperties: false,
    properties: Object.fromEntries(messageStatuses.map((status) => [status, count])),
  }
  const inCounts = {
    type: 'object',
    description: 'Messages the phones received',
    required: ['received'],
    additionalProperties: false,
    properties: { received: count },
  }
  const counts = registry.addSchema('MessageVolumeCounts', {
    type: 'object',
    required: ['out', 'in'],
    additionalProperties: false,
    properties: { out: outCounts, in: inCounts },
  })
  const volume = registry.addSchema('MessageVolume', {
    type: 'object',
    required: ['from', 'to', 'interval', 'timezone', 'buckets', 'totals'],
    additionalProperties: false,
    properties: {
      from: { ...isoDateTimeSchema, description: 'Start of the first bucket (the range counted, UTC)' },
      to: { ...isoDateTimeSchema, description: 'End of the last bucket (UTC)' },
      interval: { enum: ['day', 'hour'] },
      timezone: { type: 'string', description: 'Time zone of the buckets' },
      buckets: {
        type: 'array',
        description: 'Every local day or hour of the range, oldest first, empty ones included',
        items: {
          type: 'object',
          required: ['start', 'out', 'in'],
          additionalProperties: false,
          properties: {
            start: { ...isoDateTimeSchema, description: 'UTC instant of the local start of the bucket' },
            out: outCounts,
            in: inCounts,
          },
        },
      },
      totals: counts,
    },
  })

  return defineRoutes([
    {
      method: 'GET',
      path: '/api/v1/statistics/messages',
      operationId: 'getMessageVolume',
      summary: 'Message volume per local day or hour, by direction and status',
      description:
        'Counts of messages CREATED in each bucket, by their CURRENT status (a message sent on Monday and delivered on ' +
        'Tuesday counts once, on Monday, as delivered). Buckets are the local days or hours of `tz` (default: the ' +
        'platform time zone, Settings > Sending) that overlap [from, to): every one is present, with zeros, and ' +
        '`from`/`to` in the answer are the start of the first and the end of the last. A daylight-saving day is one ' +
        'bucket of 23 or 25 hours; by hour, the skipped hour has no bucket and the repeated one two. Default range: ' +
        `today and the ${DEFAULT_RANGE_DAYS - 1} days before. At most ${MAX_RANGE_DAYS.day} days by day and ` +
        `${MAX_RANGE_DAYS.hour} days by hour (400 VALIDATION_ERROR beyond). Answered from counters kept as messages ` +
        'change, so the cost follows the length of the range, not the number of messages.',
      tag: 'Statistics',
      access: statisticsPermissions['statistics.read'],
      query: messageVolumeValidator,
      answer: { status: 200, description: 'Counts per bucket and in total', schema: volume },
      handler: [StatisticsController, 'messages'],
    },
  ])
}
