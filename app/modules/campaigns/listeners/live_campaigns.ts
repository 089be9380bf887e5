import type { Broadcastable } from '@boringnode/transmit/types'
import type { Clock, Timer } from '#core/time/clock'
import type { CampaignBook } from '#modules/campaigns/services/campaign_book'
import Campaign from '#modules/campaigns/models/campaign'

/** The Transmit channel of campaigns' progress, open to every signed-in role (campaigns.read). */
export const CAMPAIGNS_CHANNEL = 'campaigns'
/** At most one progress broadcast per campaign per this long; a status change goes at once. */
export const LIVE_EVERY_MS = 1000

/**
 * `campaign.changed` on the dashboards' live stream: id, status, counts, pace, estimated end and
 * when a held campaign resumes. Never a number or a text. Progress is coalesced to one broadcast
 * per second per campaign (the last change always goes out); a status change is sent at once.
 */
export class LiveCampaigns {
  #sentAt = new Map<number, number>()
  #trailing = new Map<number, Timer>()

  constructor(
    private transmit: () => Promise<{ broadcast(channel: string, payload?: Broadcastable): void }>,
    private book: () => Promise<CampaignBook>,
    private clock: () => Promise<Clock>
  ) {}

  changed(campaignId: number, statusChanged: boolean): void {
    void this.#changed(campaignId, statusChanged).catch(() => {
      // A dashboard missing a step reads the campaign again; the campaign goes on.
    })
  }

  async #changed(campaignId: number, statusChanged: boolean) {
    const clock = await this.clock()
    const now = clock.now().getTime()
    const last = this.#sentAt.get(campaignId) ?? 0
    if (statusChanged || now - last >= LIVE_EVERY_MS) {
      this.#trailing.get(campaignId)?.cancel()
      this.#trailing.delete(campaignId)
      this.#sentAt.set(campaignId, now)
      await this.#send(campaignId)
      return
    }
    if (this.#trailing.has(campaignId)) return
    this.#trailing.set(
      campaignId,
      clock.setTimer(last + LIVE_EVERY_MS - now, () => {
        this.#trailing.delete(campaignId)
        this.#sentAt.set(campaignId, clock.now().getTime())
        void this.#send(campaignId).catch(() => {})
      })
    )
  }

  async #send(campaignId: number) {
    const campaign = await Campaign.find(campaignId)
    if (!campaign) return
    const resource = await (await this.book()).present(campaign)
    ;(await this.transmit()).broadcast(CAMPAIGNS_CHANNEL, {
      type: 'campaign.changed',
      campaign: {
        id: resource.id,
        status: resource.status,
        counts: resource.counts,
        ratePerMinute: resource.ratePerMinute,
        estimatedEndAt: resource.estimatedEndAt,
        resumesAt: resource.resumesAt,
      },
    } as unknown as Broadcastable)
  }

  stop() {
    for (const timer of this.#trailing.values()) timer.cancel()
    this.#trailing.clear()
  }
}
