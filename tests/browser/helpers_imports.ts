import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import db from '@adonisjs/lucid/services/db'
import app from '@adonisjs/core/services/app'
import logger from '@adonisjs/core/services/logger'
import { JobRunner } from '#core/jobs/job_runner'
import { ContactImports } from '#modules/contact_imports/services/contact_imports'
import { contactImportJob } from '#modules/contact_imports/jobs/contact_import_job'
import { LiveImports } from '#modules/contact_imports/listeners/live_imports'
import { useManualClock } from '#tests/helpers/clock'
import { setLocalPrefix } from '#tests/helpers/messages'

/**
 * What an import test needs: a folder for its CSV files (`folder`), the local prefix +33 (the
 * files hold local numbers), and the contact import job on a JobRunner of its own over a
 * ManualClock, put in the gateway's place: an uploaded import runs when the test moves the clock
 * (`clock.advance(0)`, then `runner.whenIdle()`), its progress still reaching the page on the
 * `imports` channel. `stop` undoes all of it.
 */
export async function useContactImportJobs(folderPrefix: string) {
  const folder = await mkdtemp(join(tmpdir(), folderPrefix))
  await setLocalPrefix('+33')
  const manual = useManualClock(new Date())
  await db.from('scheduled_jobs').delete()
  const runner = new JobRunner(manual.clock, db, logger)
  const live = await app.container.make(LiveImports)
  runner.register(contactImportJob(() => app.container.make(ContactImports), (id, final) => void live.progressed(id, final)))
  app.container.swap(JobRunner, () => runner)
  await runner.start()
  return {
    folder,
    clock: manual.clock,
    runner,
    async stop() {
      await runner.stop()
      app.container.restore(JobRunner)
      manual.restore()
      await rm(folder, { recursive: true, force: true })
      await setLocalPrefix(null)
    },
  }
}
