import { inject } from '@adonisjs/core'
import { shortUrlOf } from '#modules/links/services/link_shortener'
import { LinkStore, type LinkClickRow } from '#modules/links/stores/link_store'

/**
 * Reads of the click counters the database keeps as links are followed (migration 0020,
 * docs/statistics.md), between bucket boundaries: the cost follows the number of counter rows in
 * the range, not the number of clicks.
 */

/** Resolution of the click counters: a quarter hour. */
export const CLICK_SLOT_SECONDS = 900

export type { LinkClickRow }

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

/** Clicks summed per bucket and per link (the statistics endpoints). */
@inject()
export class LinkCounters {
  constructor(private links: LinkStore) {}

  /**
   * Clicks on short links per bucket (of one link, or all): bucket i is [boundaries[i],
   * boundaries[i + 1]), each boundary rounded down to the quarter hour. Buckets without clicks
   * are absent.
   */
  async linkClicks(boundaries: Date[], linkId?: number): Promise<LinkClickRow[]> {
    if (boundaries.length < 2) return []
    const slots = boundaries.map(clickSlotOf)
    return this.links.clicksPerBucket(
      slots.slice(0, -1).map((from, index) => [index, from, slots[index + 1]]),
      linkId
    )
  }

  /** The links clicked most between the first and the last boundary, most clicked first. */
  async topLinks(boundaries: Date[], limit: number, linkId?: number): Promise<LinkClickTotal[]> {
    if (boundaries.length < 2) return []
    const rows = await this.links.mostClicked(clickSlotOf(boundaries[0]), clickSlotOf(boundaries.at(-1)!), limit, linkId)
    return rows.map((row) => ({ id: row.id, code: row.code, shortUrl: shortUrlOf(row.code), url: row.url, clicks: row.clicks }))
  }
}
