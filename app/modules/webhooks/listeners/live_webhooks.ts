import type { Broadcastable } from '@boringnode/transmit/types'
import type { DeliveriesChanged, DeliveriesRecorded, WebhooksChanged } from '#modules/webhooks/events'

/** The Transmit channel signed-in dashboards subscribe to for deliveries' outcomes. */
export const WEBHOOKS_CHANNEL = 'webhooks'

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
  transmit: () => Promise<{ broadcast(channel: string, payload?: Broadcastable): void }>,
  now: () => Promise<Date>
) {
  const send = async (payload: Broadcastable) => (await transmit()).broadcast(WEBHOOKS_CHANNEL, payload)
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
