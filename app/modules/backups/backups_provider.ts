import type { ApplicationService } from '@adonisjs/core/types'
import { Clock } from '#core/time/clock'
import { ActivityLog } from '#core/activity/activity_log'
import { SettingsStore } from '#core/settings/settings_store'
import { DataFolder } from '#core/data_folder/data_folder'
import { RouteRegistry } from '#core/contract/route_registry'
import { backupRoutes } from '#modules/backups/routes'
import { BackupEngine } from '#modules/backups/services/backup_engine'
import { BackupCatalogue } from '#modules/backups/services/backup_catalogue'
import { BackupAlerts } from '#modules/backups/services/backup_alerts'
import { SendMessages } from '#modules/messages/public'
import { AlertMailer } from '#core/notifications/alert_mailer'
import { LiveNotices } from '#core/notifications/live_notices'
import { JobRunner } from '#core/jobs/job_runner'
import { BackupSchedule } from '#modules/backups/services/backup_schedule'
import { BACKUP_SCHEDULE_JOB, backupScheduleJob } from '#modules/backups/jobs/backup_schedule_job'
import { RestoreGate, RestorePreparation } from '#modules/backups/services/restore_preparation'
import { reportRestoreOutcome } from '#modules/backups/services/restore_report'
import { registerVocabulary } from '#core/contract/module_vocabulary'
import { backupActivity } from '#modules/backups/activity'
import { backupErrors } from '#modules/backups/errors'
import { backupPermissions } from '#modules/backups/permissions'
import { backupEvents } from '#modules/backups/events'
import { backupSettings } from '#modules/backups/settings'
import { backupProgressBroadcaster, restrictBackupsChannel } from '#modules/backups/listeners/live_backups'

/** Backups: the engine, the files of backups/, the failure alert. */
export default class BackupsProvider {
  constructor(protected app: ApplicationService) {}

  register() {
    registerVocabulary({ errors: backupErrors, permissions: backupPermissions, events: backupEvents, settings: backupSettings, activity: backupActivity })
    const { container } = this.app
    container.singleton(BackupCatalogue, async (resolver) => new BackupCatalogue(await resolver.make('lucid.db'), DataFolder.current().backupsDir))
    container.singleton(BackupAlerts, async (resolver) => {
      const settings = () => container.make(SettingsStore)
      const notices = new LiveNotices(() => container.make('transmit'))
      return new BackupAlerts(settings, () => container.make(SendMessages), new AlertMailer(settings), notices, await resolver.make('logger'))
    })
    container.singleton(RestoreGate, () => new RestoreGate())
    container.bind(RestorePreparation, async (resolver) => {
      const clock = await resolver.make(Clock)
      const [catalogue, gate] = await Promise.all([resolver.make(BackupCatalogue), resolver.make(RestoreGate)])
      return new RestorePreparation(catalogue, gate, DataFolder.current().restoreDir, this.app.migrationsPath(), () => clock.now())
    })
    // Resolved per use: the engine is the container's at that moment (tests swap it).
    container.bind(BackupSchedule, async (resolver) => {
      return new BackupSchedule(await resolver.make('lucid.db'), await resolver.make(Clock), () => container.make(SettingsStore), () => container.make(BackupEngine))
    })
    container.singleton(BackupEngine, async (resolver) => {
      const catalogue = await resolver.make(BackupCatalogue)
      const alerts = await resolver.make(BackupAlerts)
      const emitter = await resolver.make('emitter')
      const clock = await resolver.make(Clock)
      return new BackupEngine({
        db: await resolver.make('lucid.db'),
        clock,
        logger: await resolver.make('logger'),
        activity: await resolver.make(ActivityLog),
        databaseFile: DataFolder.current().databaseFile,
        backupsDir: DataFolder.current().backupsDir,
        migrationsDir: this.app.migrationsPath(),
        emit: (event, payload) => emitter.emit(event, payload),
        afterSuccess: async () => {
          const { retention } = await (await container.make(SettingsStore)).get('backup')
          await catalogue.applyRetention(retention)
        },
        alert: (attempt) => alerts.backupFailed(attempt),
        progress: backupProgressBroadcaster(() => container.make('transmit'), async () => clock.now()),
      })
    })
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
