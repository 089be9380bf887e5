import { inject } from '@adonisjs/core'
import { LATENCY_BOUNDS_SECONDS, MessageCounterStore, type LatencyStage } from '#modules/statistics/stores/message_counter_store'
import { StatisticsRange, type RangeQuery } from '#modules/statistics/services/statistics_range'
import { counterFilters, type FilterQuery } from '#modules/statistics/services/message_volume_statistics'
import type { StatisticsAnswers } from '#modules/statistics/schemas'

export type FailuresAnswer = StatisticsAnswers['failures']
export type LatencyAnswer = StatisticsAnswers['latency']
export type LatencyFigures = LatencyAnswer['buckets'][number]['toSent']

/** A latency histogram bucket: [from, to) seconds, `to` null for the last (a day or more). */
export type LatencyRange = NonNullable<LatencyFigures['p50']>

/** Codes in code-point order, a failure without a code last. */
function byCode(a: string | null, b: string | null): number {
  if (a === b) return 0
  if (a === null) return 1
  if (b === null) return -1
  return a < b ? -1 : 1
}

const histogramSize = LATENCY_BOUNDS_SECONDS.length + 1

function rangeOf(index: number): LatencyRange {
  return { from: index === 0 ? 0 : LATENCY_BOUNDS_SECONDS[index - 1], to: LATENCY_BOUNDS_SECONDS[index] ?? null }
}

/** The histogram bucket holding the ceil(q × count)-th fastest message, null when empty. */
export function quantileOf(histogram: number[], q: number): LatencyRange | null {
  const count = histogram.reduce((total, n) => total + n, 0)
  if (count === 0) return null
  const rank = Math.max(1, Math.ceil(q * count))
  let seen = 0
  for (let index = 0; index < histogram.length; index++) {
    seen += histogram[index]
    if (seen >= rank) return rangeOf(index)
  }
  return rangeOf(histogram.length - 1)
}

function figuresOf(histogram: number[]): LatencyFigures {
  return { count: histogram.reduce((total, n) => total + n, 0), p50: quantileOf(histogram, 0.5), p95: quantileOf(histogram, 0.95) }
}

/** Failure reasons and latency, read from this module's message counters (docs/statistics.md). */
@inject()
export class QualityStatistics {
  constructor(
    private range: StatisticsRange,
    private statistics: MessageCounterStore
  ) {}

  async failures(query: RangeQuery & FilterQuery): Promise<FailuresAnswer> {
    const range = await this.range.resolve(query)
    const buckets = range.starts.map((start) => ({ start, failed: 0 }))
    const reasons = new Map<string | null, number>()
    let failed = 0
    for (const row of await this.statistics.failures(range.boundaries, counterFilters(query))) {
      buckets[row.bucket].failed += row.count
      reasons.set(row.errorCode, (reasons.get(row.errorCode) ?? 0) + row.count)
      failed += row.count
    }
    const sorted = [...reasons]
      .map(([errorCode, count]) => ({ errorCode, count }))
      .sort((a, b) => b.count - a.count || byCode(a.errorCode, b.errorCode))
    return { from: range.from, to: range.to, interval: range.interval, timezone: range.timezone, buckets, totals: { failed, reasons: sorted } }
  }

  async latency(query: RangeQuery & Pick<FilterQuery, 'deviceId' | 'simSlot'>): Promise<LatencyAnswer> {
    const range = await this.range.resolve(query)
    const empty = () => new Array<number>(histogramSize).fill(0)
    const perBucket = range.starts.map(() => ({ sent: empty(), delivered: empty() }))
    const totals: Record<LatencyStage, number[]> = { sent: empty(), delivered: empty() }
    const { deviceId, simSlot } = counterFilters(query)
    for (const row of await this.statistics.latency(range.boundaries, { deviceId, simSlot })) {
      perBucket[row.bucket][row.stage][row.latencyBucket] += row.count
      totals[row.stage][row.latencyBucket] += row.count
    }
    const histogram = (counts: number[]) => counts.map((count, index) => ({ ...rangeOf(index), count }))
    return {
      from: range.from,
      to: range.to,
      interval: range.interval,
      timezone: range.timezone,
      buckets: range.starts.map((start, index) => ({
        start,
        toSent: figuresOf(perBucket[index].sent),
        toDelivered: figuresOf(perBucket[index].delivered),
      })),
      totals: {
        toSent: { ...figuresOf(totals.sent), histogram: histogram(totals.sent) },
        toDelivered: { ...figuresOf(totals.delivered), histogram: histogram(totals.delivered) },
      },
    }
  }
}
