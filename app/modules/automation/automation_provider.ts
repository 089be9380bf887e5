import type { ApplicationService } from '@adonisjs/core/types'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { automationEvents } from '#modules/automation/events'

/**
 * Automation rules on incoming SMS. For now the module brings only its public event, so a
 * webhook can subscribe to `rule.triggered` as the spec's catalogue says; the rules themselves
 * come with the module (the webhooks module already signs and retries a rule's URL call).
 */
export default class AutomationProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ events: automationEvents })
  }
}
