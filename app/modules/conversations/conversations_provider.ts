import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { conversationPermissions } from '#modules/conversations/permissions'
import { conversationRoutes } from '#modules/conversations/routes'

/**
 * Conversations: one per number, created or touched by every message either way through the
 * upsert the messages module calls inside its own transaction (`recordConversationActivity`,
 * `#modules/conversations/public`), read and changed (pin, archive, assign, mark read) over HTTP,
 * linked to their number's contact by the contacts module. Builds on core and the auth module
 * (who can be assigned); its error answers are core's (NOT_FOUND, VALIDATION_ERROR).
 */
export default class ConversationsProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ permissions: conversationPermissions })
  }

  async start() {
    const registry = await this.app.container.make(RouteRegistry)
    registry.add(conversationRoutes(registry))
  }
}
