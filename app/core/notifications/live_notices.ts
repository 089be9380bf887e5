import type { Broadcastable } from '@boringnode/transmit/types'

/** The channel every signed-in dashboard subscribes to. */
export const NOTICES_CHANNEL = 'notices'

export interface LiveNotice {
  /** What happened, e.g. `backup.failed`. */
  type: string
  /** One sentence for the operator. Never SMS text, a full phone number or a secret. */
  message: string
  at: string
  details?: Record<string, string | number | null>
}

/**
 * Live notices to signed-in dashboards (@adonisjs/transmit, Server-Sent Events): the browser
 * channel of administrator alerts. The stream and its subscription are open to signed-in
 * dashboard sessions only (the auth module registers the routes).
 */
export class LiveNotices {
  constructor(private transmit: () => Promise<{ broadcast(channel: string, payload?: Broadcastable): void }>) {}

  async publish(notice: LiveNotice): Promise<void> {
    ;(await this.transmit()).broadcast(NOTICES_CHANNEL, notice as unknown as Broadcastable)
  }
}
