import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { IdempotentRequests } from '#core/idempotency/idempotent_requests'
import { SettingsStore } from '#core/settings/settings_store'
import { Clock } from '#core/time/clock'
import { sendingRoutes } from '#modules/sending/routes'
import { sendErrors } from '#modules/sending/errors'
import { SendQueue } from '#modules/sending/services/send_queue'
import { BulkSends } from '#modules/sending/services/bulk_sends'
import { sendCheckMeta } from '#modules/sending/validators/send_validator'

/**
 * Accepting a send: `POST /api/v1/messages` (its checks, the idempotent answer) and the send
 * queue, which writes the sends that arrive together in one transaction, and a campaign's turn
 * (`BulkSends`). The messages it queues are the messages module's from their insert on
 * (`queueMessages`, `#modules/messages/public`; docs/modules.md, The send walk).
 */
export default class SendingProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ errors: sendErrors })
    this.app.container.singleton(SendQueue, async (resolver) => new SendQueue(await resolver.make(IdempotentRequests)))
    this.app.container.singleton(BulkSends, () => new BulkSends())
  }

  async start() {
    const registry = await this.app.container.make(RouteRegistry)
    const settings = await this.app.container.make(SettingsStore)
    registry.add(sendingRoutes(registry, sendCheckMeta(settings, await this.app.container.make(Clock))))
  }
}
