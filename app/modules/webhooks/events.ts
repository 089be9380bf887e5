/**
 * Internal events of the webhooks module and its delivery engine (not public ones: no webhook subscribes to them). They
 * say which rows a write touched, once per written batch, so the dashboard's live stream follows
 * deliveries without one message per delivery.
 */
export interface DeliveriesRecorded {
  webhookIds: string[]
  count: number
}

export interface DeliveriesChanged {
  deliveryIds: string[]
  webhookIds: string[]
}

/** A webhook was created, changed (paused, turned back on, edited) or deleted through the API. */
export interface WebhooksChanged {
  webhookIds: string[]
}

declare module '@adonisjs/core/types' {
  interface EventsList {
    'webhooks:changed': WebhooksChanged
    'webhooks:deliveries_recorded': DeliveriesRecorded
    'webhooks:deliveries_changed': DeliveriesChanged
  }
}
