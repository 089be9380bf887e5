import type { ApplicationService } from '@adonisjs/core/types'
import { Clock } from '#core/time/clock'
import { ActivityLog } from '#core/activity/activity_log'
import { SettingsStore } from '#core/settings/settings_store'
import { DataFolder } from '#core/data_folder/data_folder'
import { RouteRegistry } from '#core/contract/route_registry'
import { backupRoutes } from '#modules/backups/routes'
import { BackupTurns } from '#modules/backups/services/backup_engine'
import { BackupFolders } from '#modules/backups/services/backup_folders'
import { BackupAlerts } from '#modules/backups/services/backup_alerts'
import { SendMessages } from '#modules/sending/public'
import { AlertMailer } from '#core/notifications/alert_mailer'
import { LiveNotices } from '#core/notifications/live_notices'
import { JobRunner } from '#core/jobs/job_runner'
import { BackupSchedule } from '#modules/backups/services/backup_schedule'
import { BACKUP_SCHEDULE_JOB, backupScheduleJob } from '#modules/backups/jobs/backup_schedule_job'
import { RestoreGate } from '#modules/backups/services/restore_preparation'
import { reportRestoreOutcome } from '#modules/backups/services/restore_report'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { backupActivity } from '#modules/backups/activity'
import { backupErrors } from '#modules/backups/errors'
import { backupPermissions } from '#modules/backups/permissions'
import { backupEvents } from '#modules/backups/events'
import { backupSettings } from '#modules/backups/settings'
import { BackupProgressChannel, restrictBackupsChannel } from '#modules/backups/listeners/live_backups'

/** Backups: the engine, the files of backups/, the failure alert. */
export default class BackupsProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ errors: backupErrors, permissions: backupPermissions, events: backupEvents, settings: backupSettings, activity: backupActivity })
    const { container } = this.app
    container.singleton(BackupFolders, () => {
      const folder = DataFolder.current()
      return new BackupFolders(folder.databaseFile, folder.backupsDir, folder.restoreDir, this.app.migrationsPath())
    })
    container.singleton(BackupAlerts, async (resolver) => {
      const settings = () => container.make(SettingsStore)
      const notices = new LiveNotices(() => container.make('transmit'))
      return new BackupAlerts(settings, () => container.make(SendMessages), new AlertMailer(settings), notices, await resolver.make('logger'))
    })
    container.singleton(BackupProgressChannel, async (resolver) => new BackupProgressChannel(() => container.make('transmit'), await resolver.make(Clock)))
    container.singleton(RestoreGate, () => new RestoreGate())
    container.singleton(BackupTurns, () => new BackupTurns())
    // BackupEngine, BackupSchedule, BackupCatalogue and RestorePreparation are @inject()ed,
    // resolved for each schedule pass and held by the controller: what they keep between uses is
    // in the singletons above, and a test swaps one of their parts (a failing snapshot) in the
    // container.
  }

  async start() {
    const { container } = this.app
    await reportRestoreOutcome(DataFolder.current().restoreDir, await container.make('logger'), await container.make(ActivityLog))
    const registry = await container.make(RouteRegistry)
    registry.add(backupRoutes(registry))
    await restrictBackupsChannel(await container.make('transmit'))
    const runner = await container.make(JobRunner)
    runner.register(backupScheduleJob(() => container.make(BackupSchedule)))
    // A change of the backup block (or of the time zone) applies at once, not only within a minute.
    const emitter = await container.make('emitter')
    emitter.on('settings:changed', async ({ sections }) => {
      if (!sections.includes('backup') && !sections.includes('sending')) return
      const current = await container.make(JobRunner)
      if (current.started && current.has(BACKUP_SCHEDULE_JOB)) current.wake(BACKUP_SCHEDULE_JOB)
    })
  }
}
