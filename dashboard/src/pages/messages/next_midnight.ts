/**
 * The next local midnight of an IANA time zone after `now`, as an instant: when the gateway's
 * SIM quotas (counted per day of the platform time zone) start again. Daylight saving moves the
 * offset, so it is read for the answer itself, not for `now`.
 */
export function nextMidnightIn(timeZone: string, now: Date): Date {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric' })
      .formatToParts(now)
      .map((part) => [part.type, part.value])
  )
  const localMidnight = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day) + 1)
  // Twice: the offset at the first guess may differ from the one at midnight (a DST change).
  let guess = localMidnight - offsetAt(timeZone, new Date(localMidnight))
  guess = localMidnight - offsetAt(timeZone, new Date(guess))
  return new Date(guess)
}

/** Milliseconds the zone is ahead of UTC at `instant`. */
function offsetAt(timeZone: string, instant: Date): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' })
      .formatToParts(instant)
      .map((part) => [part.type, part.value])
  )
  const asUtc = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second))
  return asUtc - Math.floor(instant.getTime() / 1000) * 1000
}
