import type { ApplicationService } from '@adonisjs/core/types'
import { JobRunner } from '#core/jobs/job_runner'
import { RouteRegistry } from '#core/contract/route_registry'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { automationActivity } from '#modules/automation/activity'
import { automationEvents } from '#modules/automation/events'
import { automationErrors } from '#modules/automation/errors'
import { automationSettings } from '#modules/automation/settings'
import { automationPermissions } from '#modules/automation/permissions'
import { automationRoutes } from '#modules/automation/routes'
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
