import type { Logger } from '@adonisjs/core/logger'
import { logSafeError } from '#core/logging/redaction'
import type { SettingsStore } from '#core/settings/settings_store'
import type { AlertMailer } from '#core/notifications/alert_mailer'
import type { LiveNotices } from '#core/notifications/live_notices'
import type { SendMessages } from '#modules/sending/public'
import type { BackupAttempt } from '#modules/backups/services/backup_engine'

/**
 * The Backup failed alert (Settings > Notifications, on by default), on every configured
 * channel: an SMS of category info to each administrator number, an e-mail through the
 * configured SMTP server to each administrator address, and a live notice to every signed-in
 * dashboard. A channel that fails is logged and does not stop the others.
 */
export class BackupAlerts {
  constructor(
    private settings: () => Promise<SettingsStore>,
    private sender: () => Promise<SendMessages>,
    private mailer: AlertMailer,
    private notices: LiveNotices,
    private logger: Logger
  ) {}

  async backupFailed(attempt: BackupAttempt): Promise<void> {
    const { notifications } = await (await this.settings()).all()
    if (!notifications.backupFailedAlert) return
    const text = `SMS gateway: backup ${attempt.name} failed (${attempt.reason}).`
    await this.notices
      .publish({ type: 'backup.failed', message: `Backup ${attempt.name} failed: ${attempt.reason}`, at: attempt.finishedAt, details: { backup: attempt.name, reason: attempt.reason } })
      .catch((error) => this.logger.error({ err: logSafeError(error) }, 'the backup failed alert could not reach the dashboards'))
    if (notifications.adminPhones.length) {
      try {
        const sender = await this.sender()
        await sender.send(await sender.check({ to: notifications.adminPhones, body: text, category: 'info' }), null)
      } catch (error) {
        this.logger.error({ err: logSafeError(error) }, 'the backup failed alert could not be queued as SMS')
      }
    }
    try {
      const mailed = await this.mailer.send(`Backup failed: ${attempt.name}`, `${text}\n\nAttempt ${attempt.id}, started ${attempt.startedAt}. See GET /api/v1/backups/attempts.`)
      if (!mailed.sent && notifications.adminEmails.length) this.logger.warn({ reason: mailed.reason }, 'the backup failed alert was not e-mailed')
    } catch (error) {
      this.logger.error({ err: logSafeError(error) }, 'the backup failed alert could not be e-mailed')
    }
  }
}
