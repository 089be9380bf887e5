import type { JobDefinition } from '#core/jobs/job_runner'

export const LICENSE_CHECK_JOB = 'license-check'

/**
 * The periodic license check on the core job runner: each pass asks the license server once
 * and says when to ask again (docs/license.md). The runner keeps the due time in SQLite, so a
 * restart does not ask again before it is due.
 */
export function licenseCheckJob(license: { check(): Promise<Date | null> }): JobDefinition {
  return {
    name: LICENSE_CHECK_JOB,
    run: () => license.check(),
  }
}
