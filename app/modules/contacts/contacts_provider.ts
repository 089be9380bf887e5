import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { contactPermissions } from '#modules/contacts/permissions'
import { contactErrors } from '#modules/contacts/errors'
import { contactRoutes } from '#modules/contacts/routes'
import { groupRoutes } from '#modules/contacts/group_routes'
import { NumbersByName } from '#modules/messages/public'
import { ContactsByName } from '#modules/contacts/services/contacts_by_name'

/**
 * Contacts (one per number, the opt-out flag) and their groups, the contacts each CSV import
 * wrote, and the audiences campaigns and rules name. Built on the messages and conversations
 * modules: an opt-out withdraws waiting messages (`#modules/messages/public`) and a new contact
 * takes its number's conversation (`#modules/conversations/public`).
 */
export default class ContactsProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ errors: contactErrors, permissions: contactPermissions })
    // A search of messages finds them by their contacts' names too (docs/modules.md, Search).
    this.app.container.bind(NumbersByName, (resolver) => resolver.make(ContactsByName))
  }

  async start() {
    const registry = await this.app.container.make(RouteRegistry)
    registry.add(contactRoutes(registry))
    registry.add(groupRoutes(registry))
  }
}
