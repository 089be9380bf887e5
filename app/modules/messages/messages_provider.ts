import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { messageRoutes } from '#modules/messages/routes'
import { IdempotentRequests } from '#core/idempotency/idempotent_requests'
import { SendQueue } from '#modules/messages/services/send_queue'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { messageErrors } from '#modules/messages/errors'
import { messagePermissions } from '#modules/messages/permissions'
import { messageEvents } from '#modules/messages/events'
import { messageSettings } from '#modules/messages/settings'
import { MessageLedger } from '#modules/messages/services/message_ledger'
import { BulkSends } from '#modules/messages/services/bulk_sends'
import { Clock } from '#core/time/clock'
import { broadcastMessageChanges } from '#modules/messages/listeners/live_messages'

/**
 * Sending and reading messages, and conversations. A send with shortenLinks has its addresses
 * replaced inside its transaction by the links module (`#modules/links/public`).
 */
export default class MessagesProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ errors: messageErrors, permissions: messagePermissions, events: messageEvents, settings: messageSettings })
    this.app.container.singleton(SendQueue, () => new SendQueue(() => this.app.container.make(IdempotentRequests)))
    // Stateless; one instance spares a construction per phone frame and dispatch pass.
    this.app.container.singleton(MessageLedger, () => new MessageLedger())
    this.app.container.singleton(BulkSends, () => new BulkSends())
  }

  async start() {
    const registry = await this.app.container.make(RouteRegistry)
    registry.add(messageRoutes(registry))
    const clock = await this.app.container.make(Clock)
    broadcastMessageChanges(await this.app.container.make('emitter'), () => this.app.container.make('transmit'), async () => clock.now())
  }
}
