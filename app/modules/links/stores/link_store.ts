import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { DateTime } from 'luxon'
import { toIso } from '#core/database/utc_date_time'
import { keysetPage, type Page, type PageRequest } from '#core/pagination/keyset_page'
import Link from '#modules/links/models/link'

export interface LinkClickRow {
  bucket: number
  clicks: number
}

export interface LinkClicksRow {
  id: number
  code: string
  url: string
  clicks: number
}

/**
 * The `links` and `link_click_counts` tables (docs/modules.md, Data access). The Link model for
 * the links themselves; SQL text for the click counters, whose upsert and bucket sums the query
 * builder does not write in one statement.
 */
export class LinkStore {
  /** A page of links, newest first. */
  async page(request: PageRequest): Promise<Page<Link>> {
    return keysetPage(Link.query(), request, 'created_at', (row) => toIso(row.createdAt))
  }

  async byCode(code: string): Promise<Link | null> {
    return Link.findBy('code', code)
  }

  /** A send's new link, in the send's transaction. */
  async addLink(trx: TransactionClientContract, link: { code: string; url: string; createdAt: DateTime }): Promise<Link> {
    return Link.create({ code: link.code, url: link.url, clicks: 0, createdAt: link.createdAt }, { client: trx })
  }

  /** Counts one click of a link, in total and in its quarter hour (`slot`). */
  async countClick(trx: TransactionClientContract, linkId: number, slot: number): Promise<void> {
    await Link.query({ client: trx }).where('id', linkId).increment('clicks', 1)
    await trx.rawQuery(
      `INSERT INTO link_click_counts (slot, link_id, clicks) VALUES (?, ?, 1)
    ON CONFLICT (slot, link_id) DO UPDATE SET clicks = clicks + 1`,
      [slot, linkId]
    )
  }

  /** Clicks summed per bucket of slots `[start, end)` (of one link, or all); buckets without clicks are absent. */
  async clicksPerBucket(buckets: Array<[number, number, number]>, linkId?: number): Promise<LinkClickRow[]> {
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

  /** The links clicked most between two slots, most clicked first. */
  async mostClicked(fromSlot: number, toSlot: number, limit: number, linkId?: number): Promise<LinkClicksRow[]> {
    const rows = await db.rawQuery(
      `SELECT c.link_id AS id, SUM(c.clicks) AS clicks, links.code AS code, links.url AS url
         FROM link_click_counts c JOIN links ON links.id = c.link_id
        WHERE c.slot >= ? AND c.slot < ? ${linkId === undefined ? '' : 'AND c.link_id = ?'}
        GROUP BY c.link_id HAVING SUM(c.clicks) > 0 ORDER BY 2 DESC, 1 LIMIT ?`,
      [fromSlot, toSlot, ...(linkId === undefined ? [] : [linkId]), limit]
    )
    return rows.map((row: any) => ({ id: Number(row.id), code: row.code, url: row.url, clicks: Number(row.clicks) }))
  }
}
