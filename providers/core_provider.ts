import type { ApplicationService } from '@adonisjs/core/types'
import { Settings as LuxonSettings } from 'luxon'
import { Clock, GatewayClock } from '#core/time/clock'
import { DataFolder } from '#core/data_folder/data_folder'
import { Secrets } from '#core/secrets/secrets'
import { RouteRegistry } from '#core/contract/route_registry'
import { AccessGuard, NoCredentialsGuard } from '#core/http/access'
import { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { SettingsStore } from '#core/settings/settings_store'
import { ActivityLog } from '#core/activity/activity_log'
import { JobRunner } from '#core/jobs/job_runner'
import { migrateDatabase, checkpointDatabase } from '#core/database/schema_migrator'
import { flushLogFile, logFileDestination } from '#core/logging/log_file'
import { StorageHealth } from '#core/data_folder/storage_health'
import { settingsCatalogue } from '#core/settings/settings_catalogue'
import { AlertMailer } from '#core/notifications/alert_mailer'
import { LiveNotices } from '#core/notifications/live_notices'
import { StorageFullAlerts, storageAlertSettings } from '#core/notifications/storage_alerts'
import { logRotationJob } from '#core/logging/log_rotation_job'
import { IdempotencyLocks, IdempotentRequests } from '#core/idempotency/idempotent_requests'
import { idempotencyExpiryJob } from '#core/idempotency/idempotency_expiry_job'
import { coreRoutes } from '#core/routes'
import { QuietMemoryRelease, thisProcess } from '#core/system/quiet_memory_release'

/**
 * The shared kernel's services. Every module resolves these from the container; the clock is
 * bound once, and tests point it at a ManualClock (tests/helpers/clock.ts).
 */
export default class CoreProvider {
  #memoryRelease: QuietMemoryRelease | null = null

  constructor(protected app: ApplicationService) {}

  register() {
    const { container } = this.app
    container.singleton(Clock, () => new GatewayClock())
    container.singleton(RouteRegistry, () => new RouteRegistry())
    container.singleton(AccessGuard, () => new NoCredentialsGuard())
    container.singleton(Secrets, () => new Secrets(DataFolder.current().deriveKey('stored-secrets-v1')))
    container.singleton(PhoneNumbers, () => new PhoneNumbers())
    container.singleton(SettingsStore, async (resolver) => {
      return new SettingsStore(await resolver.make('lucid.db'), await resolver.make('emitter'), await resolver.make(Clock), await resolver.make(Secrets))
    })
    container.singleton(ActivityLog, async (resolver) => {
      return new ActivityLog(await resolver.make(Clock), await resolver.make('logger'))
    })
    container.singleton(JobRunner, async (resolver) => {
      return new JobRunner(await resolver.make(Clock), await resolver.make('lucid.db'), await resolver.make('logger'))
    })
    container.singleton(IdempotencyLocks, () => new IdempotencyLocks())
    settingsCatalogue.add(storageAlertSettings)
    container.singleton(StorageHealth, async (resolver) => {
      const logger = await resolver.make('logger')
      const settings = () => container.make(SettingsStore)
      const notices = new LiveNotices(() => container.make('transmit'))
      const alerts = new StorageFullAlerts(settings, new AlertMailer(settings), notices, () => container.make(ActivityLog), logger)
      return new StorageHealth(await resolver.make(Clock), logger, DataFolder.current().root, async () => alerts)
    })
  }

  async boot() {
    // Every date the gateway reads or writes is UTC (docs/api-conventions.md, Paths, formats, dates).
    LuxonSettings.defaultZone = 'utc'
    LuxonSettings.throwOnInvalid = false
  }

  async start() {
    const registry = await this.app.container.make(RouteRegistry)
    registry.add(coreRoutes(registry))
    const runner = await this.app.container.make(JobRunner)
    runner.register(logRotationJob())
    runner.register(idempotencyExpiryJob(() => this.app.container.make(IdempotentRequests)))

    // `npm start` on a fresh machine: the database is created and brought up to date before
    // anything else touches it. Tests start on a fresh database the same way.
    if (this.app.getEnvironment() === 'web' || this.app.getEnvironment() === 'test') {
      await migrateDatabase(this.app)
      // Only where the database is opened anyway: an Ace command that never reads the data
      // must not create an empty database by asking for the connection.
      await this.#watchStorage()
    }
  }

  /** Writes refused for lack of space, by SQLite or by the log file, reach StorageHealth. */
  async #watchStorage() {
    const health = await this.app.container.make(StorageHealth)
    const db = await this.app.container.make('lucid.db')
    health.watch(db.connection().getWriteClient())
    logFileDestination().onWriteRefused((error) => {
      if (error.code === 'ENOSPC' || error.code === 'EDQUOT') health.reportFull('log')
    })
  }

  async ready() {
    // Background work runs with the HTTP server, never inside Ace commands; tests start the
    // runner themselves, on a ManualClock.
    if (this.app.getEnvironment() === 'web') {
      const runner = await this.app.container.make(JobRunner)
      await runner.start()
      this.#memoryRelease = new QuietMemoryRelease(thisProcess())
      this.#memoryRelease.start()
    }
  }

  /**
   * Runs after the HTTP server has stopped taking requests and finished in-flight ones, and
   * before Lucid closes the connection (providers stop in reverse order).
   */
  async shutdown() {
    this.#memoryRelease?.stop()
    const runner = await this.app.container.make(JobRunner)
    await runner.stop()
    ;(await this.app.container.make(StorageHealth)).stop()
    await checkpointDatabase(this.app)
    if (this.app.getEnvironment() === 'web') {
      const logger = await this.app.container.make('logger')
      logger.info('gateway stopped: requests finished, jobs stopped, database checkpointed')
    }
    flushLogFile()
  }
}
