import { toIso } from '#core/database/utc_date_time'
import type Campaign from '#modules/campaigns/models/campaign'
import { CampaignStore } from '#modules/campaigns/stores/campaign_store'
import { afterSendingMinutes, type SendWindowSettings } from '#modules/campaigns/services/send_window'
import { phonesAvailable } from '#modules/devices/public'

export interface CampaignCounts {
  total: number
  excluded: { optedOut: number; duplicates: number; invalid: number }
  pending: number
  queued: number
  dispatched: number
  sent: number
  delivered: number
  failed: number
  paused: number
  cancelled: number
}

/** What the dashboard shows of a campaign moving: counts, pace, when it should end, when it resumes. */
export interface CampaignProgress {
  counts: CampaignCounts
  ratePerMinute: number
  estimatedEndAt: string | null
  resumesAt: string | null
}

/** A store holds no state: a plain function makes its own (docs/modules.md, Data access). */
const campaigns = new CampaignStore()

/**
 * Counts per state (one GROUP BY over the (campaign_id, replaced, status) index), the rate of
 * the last minute, and the estimated end: the messages left at the throttle (or at the rate
 * measured without one), counting only the hours the send window and night pause leave open,
 * and none while no phone can send (nothing leaves then: an end would be a guess).
 */
export async function progressOf(campaign: Campaign, now: Date, window: SendWindowSettings): Promise<CampaignProgress> {
  const counts: CampaignCounts = {
    total: campaign.total,
    excluded: { optedOut: campaign.excludedOptedOut, duplicates: campaign.excludedDuplicates, invalid: campaign.excludedInvalid },
    pending: 0,
    queued: 0,
    dispatched: 0,
    sent: 0,
    delivered: 0,
    failed: 0,
    paused: 0,
    cancelled: 0,
  }
  let ratePerMinute = 0
  if (campaign.run > 0) {
    for (const row of await campaigns.countsByStatus(campaign.id, new Date(now.getTime() - 60_000).toISOString())) {
      const key = (row.status === 'pending_quota_exceeded' ? 'queued' : row.status) as keyof Omit<CampaignCounts, 'total' | 'excluded'>
      if (key in counts) counts[key] += Number(row.n)
      if (row.status === 'sent' || row.status === 'delivered') ratePerMinute += Number(row.recent)
    }
  }
  const left = counts.pending + counts.queued + counts.dispatched + counts.paused
  const pace = campaign.throttlePerMinute ? (ratePerMinute > 0 ? Math.min(campaign.throttlePerMinute, ratePerMinute) : campaign.throttlePerMinute) : ratePerMinute
  let estimatedEndAt: string | null = null
  const moving = (campaign.status === 'running' || campaign.status === 'scheduled') && campaign.resolved && pace > 0
  if (moving && (left === 0 || (await phonesAvailable()) > 0)) {
    const from = campaign.status === 'scheduled' && campaign.startAt && campaign.startAt.toMillis() > now.getTime() ? campaign.startAt.toJSDate() : now
    const end = left === 0 ? from : afterSendingMinutes(from, left / pace, window)
    estimatedEndAt = end ? end.toISOString() : null
  }
  return { counts, ratePerMinute, estimatedEndAt, resumesAt: campaign.resumesAt ? toIso(campaign.resumesAt) : null }
}
