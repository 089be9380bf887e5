import { definePages } from '../../page_registry'

export const pages = definePages([
  { name: 'webhooks', path: 'webhooks', title: 'Webhooks', needs: 'listWebhooks', group: 'integrations', order: 10, load: () => import('./WebhooksPage.vue') },
  { name: 'webhook-deliveries', path: 'webhooks/deliveries', title: 'Webhook deliveries', needs: 'listWebhookDeliveries', group: 'integrations', order: 20, load: () => import('./DeliveriesPage.vue') },
])
