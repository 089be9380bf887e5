import type { MessageChange } from '#modules/messages/public'
import { CampaignStore } from '#modules/campaigns/stores/campaign_store'

/** A store holds no state: a plain function makes its own (docs/modules.md, Data access). */
const campaigns = new CampaignStore()

/**
 * Recipients follow their messages: each `messages:changed` batch naming campaign messages is one statement over the
 * recipients table (by message id, unique index), then the engine is woken for the campaigns
 * touched (progress, completion). Returns the function that stops listening.
 */
export function followMessageChanges(
  emitter: {
    on(name: 'messages:changed', listener: (event: { changes: MessageChange[] }) => void): unknown
    off(name: 'messages:changed', listener: (event: { changes: MessageChange[] }) => void): unknown
  },
  now: () => Promise<Date>,
  touched: (campaignIds: number[]) => void
): () => void {
  const listener = async ({ changes }: { changes: MessageChange[] }) => {
    // Only campaign messages: an API send's change costs the campaigns nothing.
    const outbound = changes.filter((change) => change.campaignId).map((change): [number, string] => [change.id, change.status])
    const touchedIds = await campaigns.followMessages(outbound, await now())
    if (touchedIds.length) touched(touchedIds)
  }
  emitter.on('messages:changed', listener)
  return () => emitter.off('messages:changed', listener)
}

/**
 * The running gateway's recipients following their messages (the container's singleton, started
 * by the campaigns provider): `stop()` and `start()` again are what a restart does to it.
 */
export class RecipientStatusFollower {
  #stop: (() => void) | null = null

  /** `follow` starts listening and returns the function that stops it (followMessageChanges). */
  constructor(private follow: () => () => void) {}

  start(): void {
    this.#stop?.()
    this.#stop = this.follow()
  }

  stop(): void {
    this.#stop?.()
    this.#stop = null
  }
}
