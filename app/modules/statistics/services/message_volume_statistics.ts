import { inject } from '@adonisjs/core'
import { DateTime } from 'luxon'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { SettingsStore } from '#core/settings/settings_store'
import { toIso } from '#core/database/utc_date_time'
import { MessageVolume, messageStatuses, type MessageStatus, type VolumeFilters } from '#modules/messages/public'

export type VolumeInterval = 'day' | 'hour'

export interface VolumeQuery extends VolumeFilters {
  from?: string
  to?: string
  interval?: VolumeInterval
  tz?: string
}

export type OutCounts = Record<MessageStatus, number>

export interface VolumeCounts {
  out: OutCounts
  in: { received: number }
}

export interface VolumeBucket extends VolumeCounts {
  start: string
}

export interface VolumeAnswer {
  from: string
  to: string
  interval: VolumeInterval
  timezone: string
  buckets: VolumeBucket[]
  totals: VolumeCounts
}

/** The range when none is asked: this local day and the six before it. */
export const DEFAULT_RANGE_DAYS = 7

/** Longest range per interval, in local calendar days (a daylight-saving week is still 7 days). */
export const MAX_RANGE_DAYS: Record<VolumeInterval, number> = { day: 400, hour: 7 }

/**
 * Message volume per local day or hour: the range and time-zone rules and the shape of the
 * answer. The counting is the messages module's (MessageVolume).
 */
@inject()
export class MessageVolumeStatistics {
  constructor(
    private clock: Clock,
    private settings: SettingsStore,
    private volume: MessageVolume
  ) {}

  async messages(query: VolumeQuery): Promise<VolumeAnswer> {
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
    const buckets: VolumeBucket[] = boundaries.slice(0, -1).map((start) => ({ start: toIso(start), ...zeroCounts() }))
    const totals = zeroCounts()
    const counts = await this.volume.count(
      boundaries.map((boundary) => boundary.toJSDate()),
      { direction: query.direction, category: query.category, deviceId: query.deviceId }
    )
    for (const { bucket, direction, status, count } of counts) {
      if (direction === 'in') {
        buckets[bucket].in.received += count
        totals.in.received += count
      } else if (status in totals.out) {
        buckets[bucket].out[status] += count
        totals.out[status] += count
      }
    }
    return {
      // The counted range: whole local buckets around what was asked.
      from: toIso(boundaries[0] ?? from),
      to: toIso(boundaries.at(-1) ?? to),
      interval,
      timezone,
      buckets,
      totals,
    }
  }
}

function zeroCounts(): VolumeCounts {
  return { out: Object.fromEntries(messageStatuses.map((status) => [status, 0])) as OutCounts, in: { received: 0 } }
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
