import { defineRoutes } from '#core/contract/route_contract'
import type { RouteRegistry } from '#core/contract/route_registry'
import { statisticsSchemas } from '#modules/statistics/schemas'
import { statisticsPermissions } from '#modules/statistics/permissions'
import { DEFAULT_RANGE_DAYS, MAX_RANGE_DAYS } from '#modules/statistics/services/statistics_range'
import {
  latencyValidator,
  linkClicksValidator,
  messageVolumeValidator,
  optOutsValidator,
  outboundFiguresValidator,
  volumeBreakdownValidator,
} from '#modules/statistics/validators/statistics_validators'

const StatisticsController = () => import('#modules/statistics/controllers/statistics_controller')

const rangeRules =
  'Buckets are the local days or hours of `tz` (default: the platform time zone, Settings > Sending) that overlap ' +
  '[from, to): every one is present, with zeros, and `from`/`to` in the answer are the start of the first and the end ' +
  'of the last. A daylight-saving day is one bucket of 23 or 25 hours; by hour, the skipped hour has no bucket and the ' +
  `repeated one two. Default range: today and the ${DEFAULT_RANGE_DAYS - 1} days before. At most ${MAX_RANGE_DAYS.day} ` +
  `days by day and ${MAX_RANGE_DAYS.hour} days by hour (400 VALIDATION_ERROR beyond). A query parameter not listed ` +
  'here is refused (400 VALIDATION_ERROR, rule unknown), not ignored.'
const created = 'Counts messages CREATED in each bucket, by their CURRENT status.'

/** Read-only figures for the dashboard and integrations (docs/statistics.md). */
export function statisticsRoutes(registry: RouteRegistry) {
  registry.describeTag(
    'Statistics',
    'Message volume, delivery rate, failure reasons, latency, link clicks and opt-outs over time, per local day or hour (docs/statistics.md)'
  )
  const { volume, breakdown, deliveryRate, failures, latency, linkClicks, optOuts } = statisticsSchemas(registry)

  const access = statisticsPermissions['statistics.read']
  return defineRoutes([
    {
      method: 'GET',
      path: '/api/v1/statistics/messages',
      operationId: 'getMessageVolume',
      summary: 'Message volume per local day or hour, by direction and status',
      description:
        `${created} A message sent on Monday and delivered on Tuesday counts once, on Monday, as delivered. ${rangeRules} ` +
        'Filters: direction, category, phone (deviceId), SIM slot (simSlot) and campaign (campaignId); inbound per day ' +
        'is direction=in. Answered from counters kept as messages change, so the cost follows the length of the range, ' +
        'not the number of messages.',
      tag: 'Statistics',
      access,
      query: messageVolumeValidator,
      answer: { status: 200, description: 'Counts per bucket and in total', schema: volume },
      handler: [StatisticsController, 'messages'],
    },
    {
      method: 'GET',
      path: '/api/v1/statistics/messages/breakdown',
      operationId: 'getMessageVolumeBreakdown',
      summary: 'Message volume over a range per phone, SIM, campaign or category, with delivery rates',
      description:
        `${created} Totals over the whole range (whole local days or hours, as the other statistics) for each phone, ` +
        'SIM (phone and slot), campaign or category that has messages in it, with its delivery rate, the busiest first ' +
        '(inbound messages count: add direction=out to rank by outbound alone). Same filters as ' +
        'GET /statistics/messages; a group\'s figures per day are that endpoint with the group as filter. ' +
        rangeRules,
      tag: 'Statistics',
      access,
      query: volumeBreakdownValidator,
      answer: { status: 200, description: 'One entry per group', schema: breakdown },
      handler: [StatisticsController, 'breakdown'],
    },
    {
      method: 'GET',
      path: '/api/v1/statistics/delivery-rate',
      operationId: 'getDeliveryRate',
      summary: 'Delivery rate per local day or hour',
      description:
        `Of the outbound messages created in each bucket: delivered / (delivered + failed + sent), by current status; ` +
        `messages not yet handed to a phone, paused or cancelled are left out, a message sent without a delivery ` +
        `report counts as not delivered. ${rangeRules}`,
      tag: 'Statistics',
      access,
      query: outboundFiguresValidator,
      answer: { status: 200, description: 'Rate per bucket and over the range', schema: deliveryRate },
      handler: [StatisticsController, 'deliveryRate'],
    },
    {
      method: 'GET',
      path: '/api/v1/statistics/failures',
      operationId: 'getFailureReasons',
      summary: 'Failed messages per local day or hour, and their error codes',
      description: `Outbound messages created in each bucket that are now failed, and over the range by error code. ${rangeRules}`,
      tag: 'Statistics',
      access,
      query: outboundFiguresValidator,
      answer: { status: 200, description: 'Failures per bucket, reasons over the range', schema: failures },
      handler: [StatisticsController, 'failures'],
    },
    {
      method: 'GET',
      path: '/api/v1/statistics/latency',
      operationId: 'getMessageLatency',
      summary: 'Latency from accept to sent and from sent to delivered (p50, p95)',
      description:
        'Of the outbound messages created in each bucket: seconds from accept (created, or the scheduled time when later) ' +
        'to sent, and from sent to delivered, counted once both times are known. Kept as a histogram of fixed buckets ' +
        '(1, 2, 3, 5, 7, 10, 15, 20, 30, 45 s, 1, 1.5, 2, 3, 5, 7.5, 10, 15, 20, 30, 45 min, 1, 1.5, 2, 3, 6, 12, 24 h), ' +
        'so p50 and p95 are the histogram bucket holding them. Latency is counted per UTC hour of creation: in a zone ' +
        'whose offset is not whole hours (Asia/Kolkata, +05:30), each bucket keeps its local `start` but counts the ' +
        'messages created from the UTC hour at or before its local start to the UTC hour at or before its local end ' +
        `(a Kolkata day: 18:00 to 18:00 UTC, not 18:30; a Kolkata hour 10:00-11:00: 04:00-05:00 UTC). ${rangeRules}`,
      tag: 'Statistics',
      access,
      query: latencyValidator,
      answer: { status: 200, description: 'Quantiles per bucket, histograms over the range', schema: latency },
      handler: [StatisticsController, 'latency'],
    },
    {
      method: 'GET',
      path: '/api/v1/statistics/links',
      operationId: 'getLinkClicks',
      summary: 'Short-link clicks per local day or hour, and per link',
      description: `Clicks on the gateway's short links in each bucket (of all links, or of linkId), and the most clicked links over the range. ${rangeRules}`,
      tag: 'Statistics',
      access,
      query: linkClicksValidator,
      answer: { status: 200, description: 'Clicks per bucket and per link', schema: linkClicks },
      handler: [StatisticsController, 'links'],
    },
    {
      method: 'GET',
      path: '/api/v1/statistics/opt-outs',
      operationId: 'getOptOuts',
      summary: 'Numbers opted out and back in per local day or hour',
      description:
        "Changes of contacts' opt-out flag (blacklisted) in each bucket, whoever made them (the contacts API, an import, " +
        `an opt-out keyword); a contact created opted out is an opt-out. ${rangeRules}`,
      tag: 'Statistics',
      access,
      query: optOutsValidator,
      answer: { status: 200, description: 'Opt-outs and opt-ins per bucket', schema: optOuts },
      handler: [StatisticsController, 'optOuts'],
    },
  ])
}

/** The module's contracts as typed, for its handlers' input (`routeInputs<StatisticsRoutes>()`). */
export type StatisticsRoutes = ReturnType<typeof statisticsRoutes>
