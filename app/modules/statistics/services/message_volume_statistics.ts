import { inject } from '@adonisjs/core'
import { messageStatuses } from '#modules/messages/public'
import type { StatisticsAnswers } from '#modules/statistics/schemas'
import { MessageCounterStore, type CounterFilters, type VolumeGroupBy, type VolumeGroupKey } from '#modules/statistics/stores/message_counter_store'
import { StatisticsRange, type RangeQuery } from '#modules/statistics/services/statistics_range'

export { DEFAULT_RANGE_DAYS, MAX_RANGE_DAYS, bucketBoundaries, type VolumeInterval } from '#modules/statistics/services/statistics_range'

/** Query filters as validated (ids as strings, SIM slot as a string digit). */
export interface FilterQuery {
  direction?: 'in' | 'out'
  category?: CounterFilters['category']
  deviceId?: string
  simSlot?: string
  campaignId?: string
}

export interface VolumeQuery extends RangeQuery, FilterQuery {}

export type VolumeAnswer = StatisticsAnswers['volume']
export type VolumeCounts = VolumeAnswer['totals']
export type OutCounts = VolumeCounts['out']
type VolumeBucket = VolumeAnswer['buckets'][number]

/** delivered / (delivered + failed + sent), null when nothing reached one of those three. */
export type DeliveryAnswer = StatisticsAnswers['deliveryRate']
export type DeliveryCounts = DeliveryAnswer['totals']

/**
 * A breakdown group as answered: ids are strings, as every id of the API (the counters keep the
 * campaign's id as a number).
 */
export type BreakdownAnswer = StatisticsAnswers['breakdown']
type BreakdownKey = BreakdownAnswer['groups'][number]['key']

function answeredKey(key: VolumeGroupKey): BreakdownKey {
  if (key.campaignId === undefined) return key as BreakdownKey
  return { ...key, campaignId: key.campaignId === null ? null : String(key.campaignId) }
}

/** The counters' filters from the query's strings. */
export function counterFilters(query: FilterQuery): CounterFilters {
  return {
    direction: query.direction,
    category: query.category,
    deviceId: query.deviceId,
    simSlot: query.simSlot === undefined ? undefined : Number(query.simSlot),
    campaignId: query.campaignId === undefined ? undefined : Number(query.campaignId),
  }
}

export function deliveryOf(out: OutCounts): DeliveryCounts {
  const { delivered, failed, sent } = out
  const reached = delivered + failed + sent
  return { delivered, failed, sent, rate: reached === 0 ? null : Math.round((delivered / reached) * 10_000) / 10_000 }
}

/**
 * Message volume per local day or hour, its breakdown per phone, SIM, campaign or category, and
 * the delivery rate: the range rules are StatisticsRange's, the counting this module's own counters
 * (MessageCounterStore).
 */
@inject()
export class MessageVolumeStatistics {
  constructor(
    private range: StatisticsRange,
    private statistics: MessageCounterStore
  ) {}

  async messages(query: VolumeQuery): Promise<VolumeAnswer> {
    const range = await this.range.resolve(query)
    const buckets: VolumeBucket[] = range.starts.map((start) => ({ start, ...zeroCounts() }))
    const totals = zeroCounts()
    for (const row of await this.statistics.volume(range.boundaries, counterFilters(query))) {
      add(buckets[row.bucket], row.direction, row.counts)
      add(totals, row.direction, row.counts)
    }
    return { from: range.from, to: range.to, interval: range.interval, timezone: range.timezone, buckets, totals }
  }

  async breakdown(query: VolumeQuery & { groupBy: VolumeGroupBy }): Promise<BreakdownAnswer> {
    const range = await this.range.resolve(query)
    // One bucket for the whole range: the totals per group.
    const whole = range.boundaries.length ? [range.boundaries[0], range.boundaries.at(-1)!] : []
    const groups = new Map<string, { key: BreakdownKey; totals: VolumeCounts }>()
    for (const row of await this.statistics.volume(whole, counterFilters(query), query.groupBy)) {
      const id = JSON.stringify(row.group)
      if (!groups.has(id)) groups.set(id, { key: answeredKey(row.group), totals: zeroCounts() })
      add(groups.get(id)!.totals, row.direction, row.counts)
    }
    const answered = [...groups.values()]
      .map((group) => ({ ...group, delivery: deliveryOf(group.totals.out), volume: sum(group.totals) }))
      .filter((group) => group.volume > 0)
      .sort((a, b) => b.volume - a.volume || JSON.stringify(a.key).localeCompare(JSON.stringify(b.key)))
      .map(({ volume: _volume, ...group }) => group)
    return { from: range.from, to: range.to, interval: range.interval, timezone: range.timezone, groupBy: query.groupBy, groups: answered }
  }

  async delivery(query: VolumeQuery): Promise<DeliveryAnswer> {
    const volume = await this.messages({ ...query, direction: 'out' })
    return {
      from: volume.from,
      to: volume.to,
      interval: volume.interval,
      timezone: volume.timezone,
      buckets: volume.buckets.map((bucket) => ({ start: bucket.start, ...deliveryOf(bucket.out) })),
      totals: deliveryOf(volume.totals.out),
    }
  }
}

function zeroCounts(): VolumeCounts {
  return { out: Object.fromEntries(messageStatuses.map((status) => [status, 0])) as OutCounts, in: { received: 0 } }
}

function add(target: VolumeCounts, direction: 'in' | 'out', counts: OutCounts) {
  if (direction === 'in') {
    // An inbound SMS is stored `delivered`.
    for (const status of messageStatuses) target.in.received += counts[status]
  } else {
    for (const status of messageStatuses) target.out[status] += counts[status]
  }
}

function sum(counts: VolumeCounts): number {
  return messageStatuses.reduce((total, status) => total + counts.out[status], counts.in.received)
}
