import db from '@adonisjs/lucid/services/db'
import { shortUrlOf } from '#modules/links/models/link'

/**
 * Reads of the click counters the database keeps as links are followed (migration 0020,
 * docs/statistics.md), between bucket boundaries: the cost follows the number of counter rows in
 * the range, not the number of clicks.
 */

/** Resolution of the click counters: a quarter hour. */
export const CLICK_SLOT_SECONDS = 900

export interface LinkClickRow {
  bucket: number
  clicks: number
}

export interface LinkClickTotal {
  id: number
  code: string
  shortUrl: string
  url: string
  clicks: number
}

export function clickSlotOf(at: Date): number {
  return Math.floor(at.getTime() / 1000 / CLICK_SLOT_SECONDS) * CLICK_SLOT_SECONDS
}

/** Counts one click of a link in its quarter hour (LinkClicks.follow, with links.clicks). */
export function countClickSql(): string {
  return `INSERT INTO link_click_counts (slot, link_id, clicks) VALUES (?, ?, 1)
    ON CONFLICT (slot, link_id) DO UPDATE SET clicks = clicks + 1`
}

/** Clicks summed per bucket and per link (the statistics endpoints). */
export class LinkCounters {
  /**
   * Clicks on short links per bucket (of one link, or all): bucket i is [boundaries[i],
   * boundaries[i + 1]), each boundary rounded down to the quarter hour. Buckets without clicks
   * are absent.
   */
  async linkClicks(boundaries: Date[], linkId?: number): Promise<LinkClickRow[]> {
    if (boundaries.length < 2) return []
    const slots = boundaries.map(clickSlotOf)
    const buckets = slots.slice(0, -1).map((from, index) => [index, from, slots[index + 1]])
    // CROSS JOIN keeps the buckets outside: one seek into the counters' key per bucket.
    const rows = await db.rawQuery(
      `WITH buckets(position, start_slot, end_slot) AS (VALUES ${buckets.map(() => '(?, ?, ?)').join(', ')})
       SELECT buckets.position AS bucket, SUM(c.clicks) AS clicks
         FROM buckets CROSS JOIN link_click_counts c
        WHERE c.slot >= buckets.start_slot AND c.slot < buckets.end_slot ${linkId === undefined ? '' : 'AND c.link_id = ?'}
        GROUP BY 1`,
      [...buckets.flat(), ...(linkId === undefined ? [] : [linkId])]
    )
    return rows.map((row: any) => ({ bucket: Number(row.bucket), clicks: Number(row.clicks) }))
  }

  /** The links clicked most between the first and the last boundary, most clicked first. */
  async topLinks(boundaries: Date[], limit: number, linkId?: number): Promise<LinkClickTotal[]> {
    if (boundaries.length < 2) return []
    const rows = await db.rawQuery(
      `SELECT c.link_id AS id, SUM(c.clicks) AS clicks, links.code AS code, links.url AS url
         FROM link_click_counts c JOIN links ON links.id = c.link_id
        WHERE c.slot >= ? AND c.slot < ? ${linkId === undefined ? '' : 'AND c.link_id = ?'}
        GROUP BY c.link_id HAVING SUM(c.clicks) > 0 ORDER BY 2 DESC, 1 LIMIT ?`,
      [clickSlotOf(boundaries[0]), clickSlotOf(boundaries.at(-1)!), ...(linkId === undefined ? [] : [linkId]), limit]
    )
    return rows.map((row: any) => ({ id: Number(row.id), code: row.code, shortUrl: shortUrlOf(row.code), url: row.url, clicks: Number(row.clicks) }))
  }
}
