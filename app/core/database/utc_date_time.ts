import { column } from '@adonisjs/lucid/orm'
import { DateTime } from 'luxon'
import { ApiError } from '#core/http/api_error'

/**
 * A date column stored as ISO 8601 UTC text with milliseconds (`2026-05-04T09:30:00.123Z`):
 * sorts as text, reads plainly in the SQLite shell, and serialises with `Z` as the API writes dates
 * (docs/api-conventions.md, Paths, formats, dates).
 * Values come from the clock service, never from the ORM's auto timestamps.
 */
export function utcDateTime(options: { columnName?: string; serializeAs?: string | null } = {}) {
  return column({
    ...options,
    prepare: (value: DateTime | null | undefined) => (value ? toIso(value) : value ?? null),
    // Stored values are always this gateway's own ISO UTC text: the native parser reads them
    // several times faster than Luxon's general ISO parser (lists read thousands).
    consume: (value: string | null) => (value ? DateTime.fromMillis(Date.parse(value), { zone: 'utc' }) : null),
    serialize: (value: DateTime | null) => (value ? toIso(value) : null),
  })
}

export function toIso(value: DateTime): string {
  return value.toUTC().toISO({ includeOffset: true, suppressMilliseconds: false })!
}

/** A nullable date as the API writes it, the way the column serialises it. */
export function isoOrNull(value: DateTime | null): string | null {
  return value ? toIso(value) : null
}

export function dateTimeOf(date: Date): DateTime {
  return DateTime.fromJSDate(date, { zone: 'utc' })
}

/**
 * A date bound of a query (`since`, `until`) as the stored text, so it compares with stored
 * dates as text; any ISO 8601 date with an offset is accepted, else a 400 naming the field.
 */
export function storedDateBound(value: string, field: string): string {
  const parsed = DateTime.fromISO(value, { zone: 'utc', setZone: true })
  if (!parsed.isValid) throw ApiError.validation(field, 'date', `The ${field} field must be an ISO 8601 date`)
  return toIso(parsed)
}
