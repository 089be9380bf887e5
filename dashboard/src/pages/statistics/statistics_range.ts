/**
 * The range the Statistics page shows: local dates of the platform's time zone, `to` included,
 * by day or by hour, as the address keeps them (`?from=2026-11-19&to=2026-11-25&interval=day`).
 * Dates are plain `YYYY-MM-DD` strings: the gateway reads a date alone as local midnight in `tz`,
 * so the browser never has to know the zone's offsets.
 */
export type Interval = 'day' | 'hour'

export interface StatisticsRange {
  /** First local day shown. */
  from: string
  /** Last local day shown (included). */
  to: string
  interval: Interval
}

/** The gateway's limits: 400 days by day, 7 days by hour. */
export const MAX_DAYS = 400
export const MAX_HOUR_DAYS = 7

export const presets = [
  { key: 'today', label: 'Today', days: 1 },
  { key: '7d', label: '7 days', days: 7 },
  { key: '30d', label: '30 days', days: 30 },
  { key: '90d', label: '90 days', days: 90 },
] as const

const DATE = /^\d{4}-\d{2}-\d{2}$/

export function isDate(value: unknown): value is string {
  if (typeof value !== 'string' || !DATE.test(value)) return false
  const parsed = new Date(`${value}T00:00:00Z`)
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value
}

/** Today's date in a time zone. */
export function todayIn(timezone: string, now = new Date()): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now)
  const part = (type: string) => parts.find((entry) => entry.type === type)!.value
  return `${part('year')}-${part('month')}-${part('day')}`
}

export function addDays(date: string, days: number): string {
  const at = new Date(`${date}T00:00:00Z`)
  at.setUTCDate(at.getUTCDate() + days)
  return at.toISOString().slice(0, 10)
}

/** Days from `from` to `to`, both included. */
export function daysIn(range: Pick<StatisticsRange, 'from' | 'to'>): number {
  return Math.round((Date.parse(`${range.to}T00:00:00Z`) - Date.parse(`${range.from}T00:00:00Z`)) / 86_400_000) + 1
}

/** The last `days` days, today included. Today alone reads best by hour. */
export function presetRange(days: number, today: string): StatisticsRange {
  return { from: addDays(today, -(days - 1)), to: today, interval: days === 1 ? 'hour' : 'day' }
}

/** The range of the address, or the last 7 days. */
export function rangeOfQuery(query: Record<string, unknown>, today: string): StatisticsRange {
  const from = isDate(query.from) ? query.from : null
  const to = isDate(query.to) ? query.to : null
  const fallback = presetRange(7, today)
  const range: StatisticsRange = {
    from: from ?? (to ? addDays(to, -6) : fallback.from),
    to: to ?? (from && from > today ? from : today),
    interval: query.interval === 'hour' ? 'hour' : 'day',
  }
  return range
}

export function queryOfRange(range: StatisticsRange): Record<string, string> {
  return { from: range.from, to: range.to, interval: range.interval }
}

/** Why the range cannot be asked for, in words; null when it can. */
export function rangeProblem(range: StatisticsRange): string | null {
  if (range.to < range.from) return 'The last day comes before the first.'
  const days = daysIn(range)
  if (days > MAX_DAYS) return `At most ${MAX_DAYS} days at a time.`
  if (range.interval === 'hour' && days > MAX_HOUR_DAYS) return `By hour, at most ${MAX_HOUR_DAYS} days: choose “by day”.`
  return null
}

/** Which preset the range is, if any (for the pressed button). */
export function presetOf(range: StatisticsRange, today: string): string | null {
  if (range.to !== today) return null
  return presets.find((preset) => preset.days === daysIn(range))?.key ?? null
}

/** The API's query for the range: `to` is excluded there, so it is the day after. */
export function apiRange(range: StatisticsRange, timezone: string) {
  return { from: range.from, to: addDays(range.to, 1), interval: range.interval, tz: timezone }
}

/**
 * Names the buckets of an answer in the platform's time zone: "19 Nov" by day, "14:00" by hour
 * over one day, "Tue 19, 14:00" by hour over several.
 */
export function bucketLabeller(answer: { interval: Interval; timezone: string; buckets: ReadonlyArray<unknown> }): (start: string) => string {
  const { interval, timezone, buckets } = answer
  if (interval === 'day') {
    const day = new Intl.DateTimeFormat(undefined, { timeZone: timezone, day: 'numeric', month: 'short', ...(buckets.length > 300 ? { year: '2-digit' } : {}) })
    return (start) => day.format(new Date(start))
  }
  const oneDay = buckets.length <= 25
  const hour = new Intl.DateTimeFormat(undefined, {
    timeZone: timezone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    ...(oneDay ? {} : { weekday: 'short', day: 'numeric' }),
  })
  return (start) => hour.format(new Date(start))
}

/** "19–25 Nov 2026" style words for the range, for headings and text alternatives. */
export function rangeWords(range: StatisticsRange): string {
  const format = new Intl.DateTimeFormat(undefined, { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric' })
  const from = format.format(new Date(`${range.from}T00:00:00Z`))
  if (range.from === range.to) return from
  return `${from} to ${format.format(new Date(`${range.to}T00:00:00Z`))}`
}
