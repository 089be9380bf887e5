import type { QueryClientContract } from '@adonisjs/lucid/types/database'

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

/**
 * A SIM's day count is taken when an order is handed out, so a quota is never overshot while
 * reports are on the way. An order that failed or went to another phone was not sent: its
 * count is given back, on the day it was counted (a count of an earlier day is gone already).
 * Answers the phones of which a SIM with a daily quota got room back (messages waiting for one
 * may go), each once.
 */
export async function giveBackSimUse(client: QueryClientContract, orders: UnsentOrder[], timezone: string): Promise<number[]> {
  const perSimDay = new Map<string, { deviceId: number; slot: number; day: string; count: number }>()
  for (const order of orders) {
    const day = dayIn(timezone, new Date(order.orderedAt))
    const key = `${order.deviceId}:${order.slot}:${day}`
    const entry = perSimDay.get(key) ?? { deviceId: order.deviceId, slot: order.slot, day, count: 0 }
    entry.count++
    perSimDay.set(key, entry)
  }
  const quotaFreed = new Set<number>()
  for (const entry of perSimDay.values()) {
    const rows = await client.rawQuery(
      `UPDATE device_sims SET sent_today = MAX(sent_today - ?, 0) WHERE device_id = ? AND slot = ? AND sent_day = ? RETURNING daily_quota`,
      [entry.count, entry.deviceId, entry.slot, entry.day]
    )
    if (rows.some((row: { daily_quota: number | null }) => row.daily_quota !== null)) quotaFreed.add(entry.deviceId)
  }
  return [...quotaFreed]
}
