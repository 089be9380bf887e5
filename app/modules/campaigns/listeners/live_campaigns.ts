import { defineLiveChannel, type LivePayload, type LiveTransmit } from '#core/live/live_channels'
import type { Clock, Timer } from '#core/time/clock'
import type { CampaignBook } from '#modules/campaigns/services/campaign_book'

const count = { type: 'integer', minimum: 0 } as const
const instantOrNull = { type: ['string', 'null'], format: 'date-time' } as const

/** The channel of campaigns' progress, open to every signed-in role (docs/live-channels.md, `campaigns`). */
export const campaignsChannel = defineLiveChannel('campaigns', {
  type: 'object',
  required: ['type', 'campaign'],
  additionalProperties: false,
  properties: {
    type: { const: 'campaign.changed' },
    campaign: {
      type: 'object',
      required: ['id', 'status', 'counts', 'ratePerMinute', 'estimatedEndAt', 'resumesAt'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        status: { enum: ['draft', 'scheduled', 'running', 'paused', 'completed', 'cancelled'] },
        counts: {
          type: 'object',
          required: ['total', 'excluded', 'pending', 'queued', 'dispatched', 'sent', 'delivered', 'failed', 'paused', 'cancelled'],
          additionalProperties: false,
          properties: {
            total: count,
            excluded: {
              type: 'object',
              required: ['optedOut', 'duplicates', 'invalid'],
              additionalProperties: false,
              properties: { optedOut: count, duplicates: count, invalid: count },
            },
            pending: count,
            queued: count,
            dispatched: count,
            sent: count,
            delivered: count,
            failed: count,
            paused: count,
            cancelled: count,
          },
        },
        ratePerMinute: { type: 'number', minimum: 0, description: 'Recipients sent in the last minute' },
        estimatedEndAt: instantOrNull,
        resumesAt: instantOrNull,
      },
    },
  },
} as const)

/** The channel's name. */
export const CAMPAIGNS_CHANNEL = campaignsChannel.name

export type LiveCampaignChanged = LivePayload<typeof campaignsChannel>
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
    private transmit: () => Promise<LiveTransmit>,
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
    const book = await this.book()
    // A campaign deleted meanwhile is not found: the caller drops the error, nothing is sent.
    const resource = await book.present(await book.find(campaignId))
    campaignsChannel.broadcast(await this.transmit(), {
      type: 'campaign.changed',
      campaign: {
        id: resource.id,
        status: resource.status,
        counts: resource.counts,
        ratePerMinute: resource.ratePerMinute,
        estimatedEndAt: resource.estimatedEndAt,
        resumesAt: resource.resumesAt,
      },
    })
  }

  stop() {
    for (const timer of this.#trailing.values()) timer.cancel()
    this.#trailing.clear()
  }
}
