import { inject } from '@adonisjs/core'
import { LinkCounters } from '#modules/links/public'
import type { StatisticsAnswers } from '#modules/statistics/schemas'
import { OptOutCounters } from '#modules/contacts/public'
import { StatisticsRange, type RangeQuery } from '#modules/statistics/services/statistics_range'

export type LinkClicksAnswer = StatisticsAnswers['linkClicks']
export type OptOutsAnswer = StatisticsAnswers['optOuts']

/** Most clicked links answered when `limit` is not given. */
export const DEFAULT_LINK_LIMIT = 20
export const MAX_LINK_LIMIT = 100

/** Link clicks and opt-outs over time, from the links and contacts modules' counters (docs/statistics.md). */
@inject()
export class EngagementStatistics {
  constructor(
    private range: StatisticsRange,
    private linkCounters: LinkCounters,
    private optOutCounters: OptOutCounters
  ) {}

  async linkClicks(query: RangeQuery & { linkId?: string; limit?: number }): Promise<LinkClicksAnswer> {
    const range = await this.range.resolve(query)
    const linkId = query.linkId === undefined ? undefined : Number(query.linkId)
    const buckets = range.starts.map((start) => ({ start, clicks: 0 }))
    let clicks = 0
    for (const row of await this.linkCounters.linkClicks(range.boundaries, linkId)) {
      buckets[row.bucket].clicks += row.clicks
      clicks += row.clicks
    }
    const top = await this.linkCounters.topLinks(range.boundaries, query.limit ?? DEFAULT_LINK_LIMIT, linkId)
    const links = top.map((link) => ({ id: String(link.id), code: link.code, shortUrl: link.shortUrl, url: link.url, clicks: link.clicks }))
    return { from: range.from, to: range.to, interval: range.interval, timezone: range.timezone, buckets, totals: { clicks }, links }
  }

  async optOuts(query: RangeQuery): Promise<OptOutsAnswer> {
    const range = await this.range.resolve(query)
    const buckets = range.starts.map((start) => ({ start, optedOut: 0, optedIn: 0 }))
    const totals = { optedOut: 0, optedIn: 0 }
    for (const row of await this.optOutCounters.optChanges(range.boundaries)) {
      buckets[row.bucket].optedOut += row.optedOut
      buckets[row.bucket].optedIn += row.optedIn
      totals.optedOut += row.optedOut
      totals.optedIn += row.optedIn
    }
    return { from: range.from, to: range.to, interval: range.interval, timezone: range.timezone, buckets, totals }
  }
}
