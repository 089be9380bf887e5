import type { JobDefinition } from '#core/jobs/job_runner'
import type { BackupSchedule } from '#modules/backups/services/backup_schedule'

export const BACKUP_SCHEDULE_JOB = 'backups.schedule'

/** Takes the automatic backup when due; looks again at least every minute. */
export function backupScheduleJob(schedule: () => Promise<BackupSchedule>): JobDefinition {
  return { name: BACKUP_SCHEDULE_JOB, run: async (now) => (await schedule()).pass(now) }
}
