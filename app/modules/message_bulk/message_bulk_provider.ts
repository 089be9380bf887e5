import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { messageBulkRoutes } from '#modules/message_bulk/routes'
import { messageBulkErrors } from '#modules/message_bulk/errors'
import { messageBulkActivity } from '#modules/message_bulk/activity'

/**
 * Many messages deleted or retried at once (docs/sending.md, Many messages at once). It owns no
 * table: it chooses the messages and acts on them through the messages module's public file,
 * with the single operations' code and permissions.
 */
export default class MessageBulkProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ errors: messageBulkErrors, activity: messageBulkActivity })
  }

  async start() {
    const registry = await this.app.container.make(RouteRegistry)
    registry.add(messageBulkRoutes())
  }
}
