import { DateTime } from 'luxon'

/** Settings > Sending fields that decide when a campaign may send (platform time zone). */
export interface SendWindowSettings {
  timezone: string
  campaignWindowEnabled: boolean
  /** ISO weekdays, 1 = Monday. */
  campaignWindowDays: number[]
  campaignWindowStart: string
  campaignWindowEnd: string
  nightPauseEnabled: boolean
  nightPauseStart: string
  nightPauseEnd: string
}

/** Local times where the rules may change, as minutes of the day: the edges and every whole hour. */
function edgesOf(settings: SendWindowSettings): number[] {
  const hours = Array.from({ length: 24 }, (_, hour) => hour * 60)
  return [...new Set([settings.nightPauseEnd, settings.nightPauseStart, settings.campaignWindowStart, settings.campaignWindowEnd].map(minutesOf).concat(hours))]
}

function minutesOf(time: string): number {
  const [hours, minutes] = time.split(':').map(Number)
  return hours * 60 + minutes
}

/**
 * `from` (included) to `to` (excluded) in minutes of the day; a range whose end is before its start
 * runs across midnight. A range whose end equals its start is `whole`: 24 hours from its start
 * (a send window of 00:00-00:00 is every minute of its days) or, when not, nothing at all (a
 * night pause of zero length pauses nothing).
 */
function within(minute: number, from: number, to: number, whole = false): { inside: boolean; startedYesterday: boolean } {
  if (from === to) return whole ? { inside: true, startedYesterday: minute < from } : { inside: false, startedYesterday: false }
  if (from < to) return { inside: minute >= from && minute < to, startedYesterday: false }
  if (minute >= from) return { inside: true, startedYesterday: false }
  return { inside: minute < to, startedYesterday: minute < to }
}

/**
 * Whether a campaign may hand out messages at `at`: inside the send window (its days, its hours
 * from the start minute up to, not including, the end minute, a window across midnight belonging
 * to the day it opened) and outside the night pause (the same, start included, end excluded). Wall-clock
 * times in the platform time zone, so a daylight-saving change moves them with the clock.
 */
export function isSendingOpen(at: Date, settings: SendWindowSettings): boolean {
  const local = DateTime.fromJSDate(at, { zone: settings.timezone })
  const minute = local.hour * 60 + local.minute
  if (settings.nightPauseEnabled && within(minute, minutesOf(settings.nightPauseStart), minutesOf(settings.nightPauseEnd)).inside) return false
  if (!settings.campaignWindowEnabled) return true
  // A window whose start and end are the same time is open all day (00:00-00:00): the way to say
  // "any hour, on these days only".
  const window = within(minute, minutesOf(settings.campaignWindowStart), minutesOf(settings.campaignWindowEnd), true)
  if (!window.inside) return false
  const day = window.startedYesterday ? local.minus({ days: 1 }).weekday : local.weekday
  return settings.campaignWindowDays.includes(day)
}

/**
 * When sending opens again after `at` (null: open now, or never within eight days, as with an
 * empty window). The candidates are the local times where the rules change (the window's and the
 * night pause's edges) on the next days, and every whole hour: an edge inside the hour a
 * spring-forward skips (02:30 on 2026-03-29 in Paris) is reached at the jump itself (03:00).
 */
export function nextOpening(at: Date, settings: SendWindowSettings): Date | null {
  if (isSendingOpen(at, settings)) return null
  const edges = edgesOf(settings)
  const today = DateTime.fromJSDate(at, { zone: settings.timezone }).startOf('day')
  const candidates: number[] = []
  for (let offset = 0; offset <= 8; offset++) {
    const day = today.plus({ days: offset })
    for (const edge of edges) {
      const candidate = day.set({ hour: Math.floor(edge / 60), minute: edge % 60 }).toMillis()
      if (candidate > at.getTime()) candidates.push(candidate)
    }
  }
  for (const candidate of candidates.sort((a, b) => a - b)) if (isSendingOpen(new Date(candidate), settings)) return new Date(candidate)
  return null
}

/** When sending next closes after `at` while open (null: never within eight days). */
export function nextClosing(at: Date, settings: SendWindowSettings): Date | null {
  if (!isSendingOpen(at, settings)) return at
  const edges = edgesOf(settings)
  const today = DateTime.fromJSDate(at, { zone: settings.timezone }).startOf('day')
  const candidates: number[] = []
  for (let offset = 0; offset <= 8; offset++) {
    for (const edge of edges) {
      const candidate = today.plus({ days: offset }).set({ hour: Math.floor(edge / 60), minute: edge % 60 }).toMillis()
      if (candidate > at.getTime()) candidates.push(candidate)
    }
  }
  for (const candidate of candidates.sort((a, b) => a - b)) if (!isSendingOpen(new Date(candidate), settings)) return new Date(candidate)
  return null
}

/**
 * When `minutes` of sending will have passed from `from`, counting only open time (the estimated
 * end of a campaign held each night).
 */
export function afterSendingMinutes(from: Date, minutes: number, settings: SendWindowSettings): Date | null {
  let at = from
  let left = minutes * 60_000
  for (let hops = 0; hops < 400; hops++) {
    if (!isSendingOpen(at, settings)) {
      const opening = nextOpening(at, settings)
      if (!opening) return null
      at = opening
    }
    const closing = nextClosing(at, settings)
    if (!closing || closing.getTime() - at.getTime() >= left) return new Date(at.getTime() + left)
    left -= closing.getTime() - at.getTime()
    at = closing
  }
  return null
}
