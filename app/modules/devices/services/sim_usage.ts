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

/** An order counted against its SIM's day that turned out not to be sent. */
export interface UnsentOrder {
  deviceId: number
  slot: number
  /** When it was handed to the phone (ISO 8601): the day it was counted on. */
  orderedAt: string
}

/** Orders not sent, counted together per SIM and the day they were counted on. */
export interface SimDayCount {
  deviceId: number
  slot: number
  day: string
  count: number
}

/**
 * A SIM's day count is taken when an order is handed out, so a quota is never overshot while
 * reports are on the way. An order that failed or went to another phone was not sent: its
 * count is given back on the day it was counted, so they are grouped by that day.
 */
export function perSimDay(orders: UnsentOrder[], timezone: string): SimDayCount[] {
  const counts = new Map<string, SimDayCount>()
  for (const order of orders) {
    const day = dayIn(timezone, new Date(order.orderedAt))
    const key = `${order.deviceId}:${order.slot}:${day}`
    const entry = counts.get(key) ?? { deviceId: order.deviceId, slot: order.slot, day, count: 0 }
    entry.count++
    counts.set(key, entry)
  }
  return [...counts.values()]
}
