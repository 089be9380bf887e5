import type { JobDefinition } from '#core/jobs/job_runner'
import type { ContactImports } from '#modules/contact_imports/services/contact_imports'

export const CONTACT_IMPORT_JOB = 'contact-import'

/**
 * Writes started contact imports, oldest first, each to its end (chunk by chunk, so a restart
 * resumes after the last committed chunk), and drops uploads nobody started within a day.
 * Sleeps until an import is started or an upload is due to be dropped.
 */
export function contactImportJob(
  imports: () => Promise<ContactImports>,
  progressed: (id: number, final: boolean) => void,
  stopping: () => boolean = () => false
): JobDefinition {
  return {
    name: CONTACT_IMPORT_JOB,
    async run(now) {
      const service = await imports()
      const dropNext = await service.dropUnstartedUploads(now)
      const id = await service.nextRunning()
      if (id === null) return dropNext
      try {
        await service.run(id, { onChunk: () => progressed(id, false), interrupted: stopping })
      } finally {
        progressed(id, true)
      }
      // Another import may wait: look again at once (after a stop, at the next start).
      return stopping() ? null : now
    },
  }
}
