import type { ApplicationService } from '@adonisjs/core/types'
import { Clock } from '#core/time/clock'
import { JobRunner } from '#core/jobs/job_runner'
import { SettingsStore } from '#core/settings/settings_store'
import { RouteRegistry } from '#core/contract/route_registry'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { automationActivity } from '#modules/automation/activity'
import { AutomaticReplies, ReceivedSmsFeed } from '#modules/messages/public'
import { ConversationBook } from '#modules/conversations/public'
import { ContactsByPhone } from '#modules/contacts/public'
import { TemplateLibrary } from '#modules/campaigns/public'
import { RuleCalls } from '#modules/webhooks/public'
import { isOwnNumber } from '#modules/devices/public'
import { automationEvents } from '#modules/automation/events'
import { automationErrors } from '#modules/automation/errors'
import { automationSettings } from '#modules/automation/settings'
import { automationPermissions } from '#modules/automation/permissions'
import { automationRoutes } from '#modules/automation/routes'
import { RuleBook } from '#modules/automation/services/rule_book'
import { RuleRunner } from '#modules/automation/services/rule_runner'
import { RULE_JOB, ruleJob } from '#modules/automation/jobs/rule_job'

/**
 * Automation rules on incoming SMS and the built-in opt-out keywords (docs/automation.md). The
 * module reads inbound SMS and replies through the messages module's public services, assigns
 * conversations through the conversations module's, acts on senders' contacts through the
 * contacts module's, calls URLs through the webhooks module's.
 */
export default class AutomationProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ events: automationEvents, permissions: automationPermissions, errors: automationErrors, settings: automationSettings, activity: automationActivity })
    this.app.container.bind(RuleRunner, async (resolver) => {
      return new RuleRunner({
        clock: await resolver.make(Clock),
        settings: await resolver.make(SettingsStore),
        logger: await resolver.make('logger'),
        emitter: await resolver.make('emitter'),
        rules: await resolver.make(RuleBook),
        inbound: new ReceivedSmsFeed(),
        senders: await resolver.make(ContactsByPhone),
        replies: await resolver.make(AutomaticReplies),
        conversations: await resolver.make(ConversationBook),
        templates: await resolver.make(TemplateLibrary),
        calls: await resolver.make(RuleCalls),
        isOwnNumber,
      })
    })
  }

  async start() {
    const { container } = this.app
    const registry = await container.make(RouteRegistry)
    registry.add(automationRoutes(registry))
    const runner = await container.make(JobRunner)
    runner.register(ruleJob(() => container.make(RuleRunner)))
    const emitter = await container.make('emitter')
    // Stored first, run after: the queue is the messages table read past the cursor, so a wake-up
    // lost to a crash costs only the wait until the job's next start.
    emitter.on('message.received', async () => {
      const current = await container.make(JobRunner)
      if (current.started && current.has(RULE_JOB)) current.wake(RULE_JOB)
    })
  }
}
