import type { ApplicationService } from '@adonisjs/core/types'
import { RouteRegistry } from '#core/contract/route_registry'
import { JobRunner } from '#core/jobs/job_runner'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { Clock } from '#core/time/clock'
import { contactImportErrors } from '#modules/contact_imports/errors'
import { importRoutes } from '#modules/contact_imports/routes'
import { ContactImports, UNSTARTED_UPLOAD_KEPT_MS } from '#modules/contact_imports/services/contact_imports'
import { CONTACT_IMPORT_JOB, contactImportJob } from '#modules/contact_imports/jobs/contact_import_job'
import { LiveImports } from '#modules/contact_imports/listeners/live_imports'

/**
 * Contact imports from a CSV: the upload, its mapping, the import job and the `imports` live
 * channel. Built on the contacts module (`#modules/contacts/public`), which writes the contacts
 * of each chunk in the import's transaction and keeps which contacts an import wrote.
 */
export default class ContactImportsProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ errors: contactImportErrors })
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
