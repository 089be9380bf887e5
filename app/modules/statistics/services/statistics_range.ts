import { inject } from '@adonisjs/core'
import { DateTime } from 'luxon'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { SettingsStore } from '#core/settings/settings_store'
import { toIso } from '#core/database/utc_date_time'

export type VolumeInterval = 'day' | 'hour'

/** The range every statistics endpoint takes (docs/statistics.md, "Ranges and buckets"). */
export interface RangeQuery {
  from?: string
  to?: string
  interval?: VolumeInterval
  tz?: string
}

/** The range resolved: the local buckets' boundaries (UTC instants), none for an empty range. */
export interface ResolvedRange {
  timezone: string
  interval: VolumeInterval
  /** Start of every bucket, then the end of the last. */
  boundaries: Date[]
  /** The counted range: start of the first bucket and end of the last (what was asked when empty). */
  from: string
  to: string
  /** UTC instant of the start of each bucket, in order. */
  starts: string[]
}

/** The range when none is asked: this local day and the six before it. */
export const DEFAULT_RANGE_DAYS = 7

/** Longest range per interval, in local calendar days (a daylight-saving week is still 7 days). */
export const MAX_RANGE_DAYS: Record<VolumeInterval, number> = { day: 400, hour: 7 }

/**
 * The range and time-zone rules shared by every statistics endpoint: `from`/`to` as local dates,
 * local date-times or instants in `tz` (default: Settings > Sending timezone), cut into the local
 * days or hours that overlap [from, to).
 */
@inject()
export class StatisticsRange {
  constructor(
    private clock: Clock,
    private settings: SettingsStore
  ) {}

  async resolve(query: RangeQuery): Promise<ResolvedRange> {
    const timezone = query.tz ?? (await this.settings.get('sending')).timezone
    const interval = query.interval ?? 'day'
    const to = query.to ? parseBound(query.to, 'to', timezone) : DateTime.fromJSDate(this.clock.now(), { zone: timezone })
    const from = query.from
      ? parseBound(query.from, 'from', timezone)
      : to.minus({ milliseconds: 1 }).startOf('day').minus({ days: DEFAULT_RANGE_DAYS - 1 })
    if (to < from) throw ApiError.validation('to', 'afterOrEqual', 'The to field must not be before from')
    if (to.diff(from, 'days').days > MAX_RANGE_DAYS[interval]) {
      throw ApiError.validation('to', 'maxRange', `A range by ${interval} spans at most ${MAX_RANGE_DAYS[interval]} days`)
    }
    const boundaries = bucketBoundaries(from, to, interval)
    return {
      timezone,
      interval,
      boundaries: boundaries.map((boundary) => boundary.toJSDate()),
      // The counted range: whole local buckets around what was asked.
      from: toIso(boundaries[0] ?? from),
      to: toIso(boundaries.at(-1) ?? to),
      starts: boundaries.slice(0, -1).map((start) => toIso(start)),
    }
  }
}

function parseBound(value: string, field: string, zone: string): DateTime {
  const parsed = DateTime.fromISO(value, { zone })
  if (!parsed.isValid) throw ApiError.validation(field, 'date', `The ${field} field must be an ISO 8601 date`)
  return parsed.setZone(zone)
}

/**
 * Starts of every local day or hour that overlaps [from, to), and the end of the last: none for
 * an empty range. Days follow the calendar of the zone (a 23- or 25-hour day is one bucket);
 * hours follow the clock (the repeated hour of an autumn night is two buckets, the skipped
 * hour of a spring night none).
 */
export function bucketBoundaries(from: DateTime, to: DateTime, interval: VolumeInterval): DateTime[] {
  if (!(from < to)) return []
  const boundaries: DateTime[] = []
  let cursor = from.startOf(interval)
  while (cursor < to) {
    boundaries.push(cursor)
    cursor = nextBoundary(cursor, interval)
  }
  boundaries.push(cursor)
  return boundaries
}

function nextBoundary(start: DateTime, interval: VolumeInterval): DateTime {
  // plus() then startOf(): a day whose midnight does not exist (a change at 00:00) starts at
  // its first existing minute, and the next one again at midnight.
  const next = interval === 'day' ? start.plus({ days: 1 }).startOf('day') : start.plus({ hours: 1 }).startOf('hour')
  return next > start ? next : start.plus({ hours: 1 })
}
