import { webhookPermissions } from '#modules/webhooks/permissions'
import { defineRoutes } from '#core/contract/route_contract'
import { pageOf } from '#core/contract/schemas'
import type { RouteRegistry } from '#core/contract/route_registry'
import { pageQueryValidator } from '#core/pagination/keyset_page'
import { webhookSchemas, webhookWithSecretSchema } from '#modules/webhooks/schemas'
import {
  createWebhookValidator,
  listDeliveriesValidator,
  updateWebhookValidator,
} from '#modules/webhooks/validators/webhook_validators'

const WebhooksController = () => import('#modules/webhooks/controllers/webhooks_controller')
const DeliveriesController = () => import('#modules/webhooks/controllers/deliveries_controller')

/** Webhook subscriptions and the delivery log (docs/webhooks.md). */
export function webhookRoutes(registry: RouteRegistry) {
  registry.describeTag('Webhooks', 'Signed calls to your URLs when events happen; the delivery log and replay (docs/webhooks.md)')
  const { webhook, delivery, failingDeliveries, eventList } = webhookSchemas(registry)

  return defineRoutes([
    {
      method: 'GET',
      path: '/api/v1/webhooks/events',
      operationId: 'listWebhookEvents',
      summary: 'The events a webhook may subscribe to',
      tag: 'Webhooks',
      access: webhookPermissions['webhooks.read'],
      answer: { status: 200, description: 'Every event of the catalogue, with its family and meaning', schema: eventList },
      handler: [WebhooksController, 'events'],
    },
    {
      method: 'GET',
      path: '/api/v1/webhooks/deliveries/failing',
      operationId: 'countFailingDeliveries',
      summary: 'How many deliveries are failing now',
      description: 'Three cheap counts: deliveries waiting for a retry, deliveries of the last 24 hours that failed, webhooks switched off after failures.',
      tag: 'Webhooks',
      access: webhookPermissions['webhooks.read'],
      answer: { status: 200, description: 'The counts', schema: failingDeliveries },
      handler: [DeliveriesController, 'failing'],
    },
    {
      method: 'GET',
      path: '/api/v1/webhooks/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'The delivery log, newest first',
      tag: 'Webhooks',
      access: webhookPermissions['webhooks.read'],
      query: listDeliveriesValidator,
      answer: { status: 200, description: 'A page of deliveries and rule calls', schema: pageOf(delivery) },
      handler: [DeliveriesController, 'index'],
    },
    {
      method: 'POST',
      path: '/api/v1/webhooks/deliveries/:id/replay',
      operationId: 'replayWebhookDelivery',
      summary: 'Send a delivery again: same body, new X-Delivery-Id and signature',
      description: "Refused on a paused or switched-off webhook (WEBHOOK_INACTIVE) and for a rule's call (NOT_REPLAYABLE).",
      tag: 'Webhooks',
      access: webhookPermissions['deliveries.replay'],
      params: { id: 'Delivery log entry identifier' },
      answer: { status: 201, description: 'The new delivery, pending', schema: delivery },
      errors: ['NOT_FOUND', 'WEBHOOK_INACTIVE', 'NOT_REPLAYABLE'],
      handler: [DeliveriesController, 'replay'],
    },
    {
      method: 'POST',
      path: '/api/v1/webhooks',
      operationId: 'createWebhook',
      summary: 'Subscribe a URL to events',
      description:
        'The signing secret is answered here only. Empty or absent: the gateway draws one. A URL whose host is a ' +
        'forbidden literal address or localhost is refused; a name is judged at every attempt once resolved.',
      tag: 'Webhooks',
      access: webhookPermissions['webhooks.change'],
      body: createWebhookValidator,
      answer: {
        status: 201,
        description: 'The webhook and its signing secret (never returned again)',
        schema: webhookWithSecretSchema(webhook),
      },
      errors: ['NAME_TAKEN'],
      handler: [WebhooksController, 'store'],
    },
    {
      method: 'GET',
      path: '/api/v1/webhooks',
      operationId: 'listWebhooks',
      summary: 'Webhooks, newest first',
      tag: 'Webhooks',
      access: webhookPermissions['webhooks.read'],
      query: pageQueryValidator,
      answer: { status: 200, description: 'A page of webhooks', schema: pageOf(webhook) },
      handler: [WebhooksController, 'index'],
    },
    {
      method: 'GET',
      path: '/api/v1/webhooks/:id',
      operationId: 'getWebhook',
      summary: 'One webhook',
      tag: 'Webhooks',
      access: webhookPermissions['webhooks.read'],
      params: { id: 'Webhook identifier' },
      answer: { status: 200, description: 'The webhook', schema: webhook },
      errors: ['NOT_FOUND'],
      handler: [WebhooksController, 'show'],
    },
    {
      method: 'PATCH',
      path: '/api/v1/webhooks/:id',
      operationId: 'updateWebhook',
      summary: 'Change, pause or turn back on a webhook',
      description:
        '`active: false` pauses it: waiting deliveries are dropped and events during the pause are not kept. ' +
        '`active: true` turns it back on with consecutiveFailures at 0. A non-empty secret replaces the current ' +
        'one from the next call, retries included; an empty one keeps it.',
      tag: 'Webhooks',
      access: webhookPermissions['webhooks.change'],
      params: { id: 'Webhook identifier' },
      body: updateWebhookValidator,
      answer: { status: 200, description: 'The webhook', schema: webhook },
      errors: ['NOT_FOUND', 'NAME_TAKEN'],
      handler: [WebhooksController, 'update'],
    },
    {
      method: 'DELETE',
      path: '/api/v1/webhooks/:id',
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook and its delivery log',
      tag: 'Webhooks',
      access: webhookPermissions['webhooks.change'],
      params: { id: 'Webhook identifier' },
      answer: { status: 204, description: 'Deleted' },
      errors: ['NOT_FOUND'],
      handler: [WebhooksController, 'destroy'],
    },
  ])
}

/** The module's contracts as typed, for its handlers' input (`routeInputs<WebhookRoutes>()`). */
export type WebhookRoutes = ReturnType<typeof webhookRoutes>
