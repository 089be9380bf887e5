/**
 * When a SIM was handed SMS, for the minimum interval and the per-minute limit per SIM. The
 * times live on the SIM's row (`device_sims.recent_orders`, epoch milliseconds, oldest first):
 * the dispatcher reads them with the SIMs at the start of a pass and writes them back with the
 * day's counts, so a restart never lets a SIM send early.
 */
export function parseRecentOrders(stored: string | null): number[] {
  if (!stored) return []
  try {
    const times = JSON.parse(stored)
    return Array.isArray(times) ? times.filter((time): time is number => Number.isFinite(time)) : []
  } catch {
    return []
  }
}

/**
 * What is worth keeping: the last order (the minimum interval may reach an hour) and, under a
 * per-minute limit, the orders of the last minute, at most that many.
 */
export function keptRecentOrders(times: number[], now: number, perMinuteLimit: number | null): number[] {
  if (!times.length) return []
  const lastMinute = perMinuteLimit ? times.filter((time) => time > now - 60_000).slice(-perMinuteLimit) : []
  return lastMinute.length ? lastMinute : times.slice(-1)
}

const dayFormats = new Map<string, Intl.DateTimeFormat>()

/** The calendar day of `date` in a time zone, as YYYY-MM-DD. */
export function dayIn(timezone: string, date: Date): string {
  let format = dayFormats.get(timezone)
  if (!format) {
    // Building a formatter costs far more than using one; a pass asks once per SIM.
    format = new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' })
    dayFormats.set(timezone, format)
  }
  return format.format(date)
}
