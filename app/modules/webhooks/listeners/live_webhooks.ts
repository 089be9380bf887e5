import { defineLiveChannel, type LivePayload, type LiveTransmit } from '#core/live/live_channels'
import type { DeliveriesChanged, DeliveriesRecorded, WebhooksChanged } from '#modules/webhooks/events'

const ids = { type: 'array', items: { type: 'string' } } as const
const at = { type: 'string', format: 'date-time' } as const

/** The channel signed-in dashboards subscribe to for deliveries' outcomes (docs/live-channels.md, `webhooks`). */
export const webhooksChannel = defineLiveChannel('webhooks', {
  oneOf: [
    {
      type: 'object',
      required: ['type', 'at', 'webhookIds', 'count'],
      additionalProperties: false,
      properties: { type: { const: 'delivery.created' }, at, webhookIds: ids, count: { type: 'integer', minimum: 0 } },
    },
    {
      type: 'object',
      required: ['type', 'at', 'deliveryIds', 'webhookIds'],
      additionalProperties: false,
      properties: { type: { const: 'delivery.changed' }, at, deliveryIds: ids, webhookIds: ids },
    },
    {
      type: 'object',
      required: ['type', 'at', 'webhookIds'],
      additionalProperties: false,
      properties: { type: { const: 'webhook.changed' }, at, webhookIds: ids },
    },
  ],
} as const)

/** The channel's name. */
export const WEBHOOKS_CHANNEL = webhooksChannel.name

export type LiveWebhooksChange = LivePayload<typeof webhooksChannel>

type WebhookEvents = {
  'webhooks:changed': WebhooksChanged
  'webhooks:deliveries_recorded': DeliveriesRecorded
  'webhooks:deliveries_changed': DeliveriesChanged
}

/**
 * Mirrors the delivery engine's writes, and changes of webhooks made through the API, on the
 * dashboards' live stream: one message per written
 * batch (the recorder and the outcome writer commit in groups), naming only which deliveries and
 * webhooks changed. Never a URL, a header, a secret or a body: the page reads the rest from the API.
 */
export function broadcastDeliveryChanges(
  emitter: { on<Name extends keyof WebhookEvents>(name: Name, listener: (event: WebhookEvents[Name]) => void): unknown },
  transmit: () => Promise<LiveTransmit>,
  now: () => Promise<Date>
) {
  const send = async (payload: LiveWebhooksChange) => webhooksChannel.broadcast(await transmit(), payload)
  emitter.on('webhooks:deliveries_recorded', async ({ webhookIds, count }) => {
    await send({ type: 'delivery.created', at: (await now()).toISOString(), webhookIds, count })
  })
  emitter.on('webhooks:changed', async ({ webhookIds }) => {
    await send({ type: 'webhook.changed', at: (await now()).toISOString(), webhookIds })
  })
  emitter.on('webhooks:deliveries_changed', async ({ deliveryIds, webhookIds }) => {
    await send({ type: 'delivery.changed', at: (await now()).toISOString(), deliveryIds, webhookIds })
  })
}
