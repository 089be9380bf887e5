import { readFile, rm } from 'node:fs/promises'
import { basename } from 'node:path'
import type { Logger } from '@adonisjs/core/logger'
import type { ActivityLog } from '#core/activity/activity_log'
import { restoreFiles } from '#modules/backups/services/restore_files'
import type { RestoreOutcome } from '#modules/backups/services/restore_swap'

/**
 * The swap at start runs before the logger exists: it leaves its outcome in restore/, and this
 * logs it (and writes it to the Activity log) once the gateway runs, then forgets it.
 */
export async function reportRestoreOutcome(restoreDir: string, logger: Logger, activity: ActivityLog): Promise<void> {
  const file = restoreFiles(restoreDir).outcome
  let outcome: RestoreOutcome
  try {
    outcome = JSON.parse(await readFile(file, 'utf8'))
  } catch {
    return
  }
  await rm(file, { force: true })
  try {
    if (outcome.applied) {
      await activity.info('backups', 'restore.applied', `Backup ${outcome.name} was restored at start; the previous database is kept as ${outcome.previous ? basename(outcome.previous) : '(none: there was none)'}`, {
        backup: outcome.name,
      })
    } else {
      await activity.error('backups', 'restore.failed', `A prepared restore was not applied: ${outcome.reason}; the gateway started on its existing database`, {
        backup: outcome.name,
      })
    }
  } catch (error) {
    // The Activity log lives in the database; the technical log always has it.
    logger.error({ restore: outcome }, 'restore outcome could not be written to the Activity log')
  }
}
