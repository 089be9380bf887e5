import type { Logger } from '@adonisjs/core/logger'
import { logSafeError } from '#core/logging/redaction'
import type { SettingsStore } from '#core/settings/settings_store'
import type { SendMessages } from '#modules/messages/services/send_messages'
import type { BackupAttempt } from '#modules/backups/services/backup_engine'

/**
 * The Backup failed alert (Settings > Notifications, on by default): an SMS of category info to
 * each administrator number. E-mail and the dashboard notice are not built yet.
 */
export class BackupAlerts {
  constructor(
    private settings: () => Promise<SettingsStore>,
    private sender: () => Promise<SendMessages>,
    private logger: Logger
  ) {}

  async backupFailed(attempt: BackupAttempt): Promise<void> {
    const { notifications } = await (await this.settings()).all()
    if (!notifications.backupFailedAlert || !notifications.adminPhones.length) return
    try {
      await (await this.sender()).send(
        { to: notifications.adminPhones, body: `SMS gateway: backup ${attempt.name} failed (${attempt.reason}).`, category: 'info' },
        null
      )
    } catch (error) {
      this.logger.error({ err: logSafeError(error) }, 'the backup failed alert could not be queued as SMS')
    }
  }
}
