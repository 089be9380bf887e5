import type { ApplicationService } from '@adonisjs/core/types'
import { Logger } from '@adonisjs/core/logger'
import env from '#start/env'
import { Clock } from '#core/time/clock'
import { Secrets } from '#core/secrets/secrets'
import { JobRunner } from '#core/jobs/job_runner'
import { ActivityLog } from '#core/activity/activity_log'
import { RouteRegistry } from '#core/contract/route_registry'
import { webhookRoutes } from '#modules/webhooks/routes'
import { DestinationPolicy } from '#modules/webhooks/services/destination_policy'
import { DeliveryClient } from '#modules/webhooks/services/delivery_client'
import { WebhookSubscriptions } from '#modules/webhooks/services/webhook_subscriptions'
import { DeliveryRecorder } from '#modules/webhooks/services/delivery_recorder'
import { DeliveryWorker } from '#modules/webhooks/services/delivery_worker'
import { DeliveryWake, deliveryJob } from '#modules/webhooks/jobs/delivery_job'
import { DeliveryStore } from '#modules/webhooks/stores/delivery_store'
import { WebhookStore } from '#modules/webhooks/stores/webhook_store'
import { deliveryLogPurgeJob } from '#modules/webhooks/jobs/delivery_log_purge_job'
import { recordPublicEvents } from '#modules/webhooks/listeners/record_public_events'
import { broadcastDeliveryChanges } from '#modules/webhooks/listeners/live_webhooks'
import '#modules/webhooks/events'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { webhookActivity } from '#modules/webhooks/activity'
import { webhookErrors } from '#modules/webhooks/errors'
import { webhookPermissions } from '#modules/webhooks/permissions'

/** Webhooks: subscriptions, the delivery engine (record, send, HTTP client under the destination policy). */
export default class WebhooksProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ errors: webhookErrors, permissions: webhookPermissions, activity: webhookActivity })
    const { container } = this.app
    container.singleton(DestinationPolicy, () => {
      return new DestinationPolicy({ allowPrivateNetworks: env.get('GATEWAY_WEBHOOKS_ALLOW_PRIVATE_NETWORKS') ?? true })
    })
    container.singleton(WebhookSubscriptions, async (resolver) => new WebhookSubscriptions(await resolver.make(WebhookStore)))
    container.singleton(DeliveryClient, async (resolver) => new DeliveryClient(await resolver.make(DestinationPolicy), await resolver.make(Clock)))
    // Jobs run with the HTTP server only; the runner is resolved at each wake so a test can put
    // its own (on a ManualClock) in the container.
    container.singleton(DeliveryWake, () => new DeliveryWake(() => container.make(JobRunner)))
    container.singleton(DeliveryRecorder, async (resolver) => {
      return new DeliveryRecorder(
        await resolver.make(Clock),
        await resolver.make(WebhookSubscriptions),
        await resolver.make(Logger),
        await resolver.make(DeliveryWake),
        await resolver.make(DeliveryStore)
      )
    })
    container.singleton(DeliveryWorker, async (resolver) => {
      return new DeliveryWorker(
        await resolver.make(Clock),
        await resolver.make(Secrets),
        await resolver.make(DeliveryClient),
        await resolver.make(ActivityLog),
        await resolver.make(WebhookSubscriptions),
        await resolver.make(Logger),
        await resolver.make(DeliveryWake),
        await resolver.make(DeliveryStore),
        await resolver.make(WebhookStore)
      )
    })
  }

  async start() {
    const { container } = this.app
    const registry = await container.make(RouteRegistry)
    registry.add(webhookRoutes(registry))
    const runner = await container.make(JobRunner)
    runner.register(deliveryJob(() => container.make(DeliveryWorker)))
    runner.register(deliveryLogPurgeJob(await container.make(DeliveryStore)))
    const emitter = await container.make('emitter')
    recordPublicEvents(emitter, () => container.make(DeliveryRecorder))
    const clock = await container.make(Clock)
    broadcastDeliveryChanges(emitter, () => container.make('transmit'), async () => clock.now())
  }

  /** Recorded deliveries are written and calls in flight abandoned before the database closes. */
  async shutdown() {
    await (await this.app.container.make(DeliveryRecorder)).flushed()
    await (await this.app.container.make(DeliveryWorker)).stop()
  }
}
