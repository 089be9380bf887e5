import { defineLiveChannel, type LivePayload, type LiveTransmit } from '#core/live/live_channels'

/** The channel every signed-in dashboard subscribes to: administrator notices (docs/live-channels.md, `notices`). */
export const noticesChannel = defineLiveChannel('notices', {
  type: 'object',
  required: ['type', 'message', 'at'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', description: 'What happened, e.g. `backup.failed`, `storage.full`, `storage.recovered`' },
    message: { type: 'string', description: 'One sentence for the operator. Never SMS text, a full phone number or a secret' },
    at: { type: 'string', format: 'date-time' },
    details: {
      type: 'object',
      additionalProperties: { type: ['string', 'number', 'null'] },
      description: 'For `backup.failed`: `{backup, reason}`',
    },
  },
} as const)

/** The channel's name. */
export const NOTICES_CHANNEL = noticesChannel.name

export type LiveNotice = LivePayload<typeof noticesChannel>

/**
 * Live notices to signed-in dashboards (@adonisjs/transmit, Server-Sent Events): the browser
 * channel of administrator alerts. The stream and its subscription are open to signed-in
 * dashboard sessions only (the auth module registers the routes).
 */
export class LiveNotices {
  constructor(private transmit: () => Promise<LiveTransmit>) {}

  async publish(notice: LiveNotice): Promise<void> {
    noticesChannel.broadcast(await this.transmit(), notice)
  }
}
