import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { JobRunner } from '#core/jobs/job_runner'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { Clock } from '#core/time/clock'
import { contactErrors } from '#modules/contacts/errors'
import { contactPermissions } from '#modules/contacts/permissions'
import { contactRoutes } from '#modules/contacts/routes'
import { groupRoutes } from '#modules/contacts/group_routes'
import { importRoutes } from '#modules/contacts/import_routes'
import { ContactImports, UNSTARTED_UPLOAD_KEPT_MS } from '#modules/contacts/services/contact_imports'
import { CONTACT_IMPORT_JOB, contactImportJob } from '#modules/contacts/jobs/contact_import_job'
import { LiveImports } from '#modules/contacts/listeners/live_imports'

/**
 * Contacts (one per number, the opt-out flag), their groups and CSV imports, and the audiences
 * campaigns and rules name. Built on the messages and conversations modules: an opt-out
 * withdraws waiting messages (`#modules/messages/public`) and a new contact takes its number's
 * conversation (`#modules/conversations/public`).
 */
export default class ContactsProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ errors: contactErrors, permissions: contactPermissions })
    this.app.container.singleton(LiveImports, async (resolver) => {
      const { container } = this.app
      const clock = await resolver.make(Clock)
      return new LiveImports(
        () => container.make('transmit'),
        () => container.make(ContactImports),
        async () => clock.now()
      )
    })
  }

  async start() {
    const { container } = this.app
    const registry = await container.make(RouteRegistry)
    registry.add(contactRoutes(registry))
    registry.add(groupRoutes(registry))
    registry.add(importRoutes(registry))
    const runner = await container.make(JobRunner)
    const liveImports = await container.make(LiveImports)
    runner.register(
      contactImportJob(
        () => container.make(ContactImports),
        (id, final) => void liveImports.progressed(id, final),
        () => this.app.isTerminating
      )
    )
    const emitter = await container.make('emitter')
    // The runner is read again at each start: tests run imports on a runner of their own.
    const wakeImports = async (at?: Date) => {
      const current = await container.make(JobRunner)
      if (current.has(CONTACT_IMPORT_JOB)) current.wake(CONTACT_IMPORT_JOB, at)
    }
    emitter.on('contacts:import_started', () => wakeImports())
    // An upload is looked at again when it would be dropped.
    const clock = await container.make(Clock)
    emitter.on('contacts:import_uploaded', () => wakeImports(new Date(clock.nowMs() + UNSTARTED_UPLOAD_KEPT_MS)))
  }
}
