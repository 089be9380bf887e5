import vine from '@vinejs/vine'
import type { Logger } from '@adonisjs/core/logger'
import { sectionFields } from '#core/settings/settings_catalogue'
import type { SettingsStore } from '#core/settings/settings_store'
import type { AlertMailer } from '#core/notifications/alert_mailer'
import type { LiveNotices } from '#core/notifications/live_notices'
import type { StorageAlerts } from '#core/data_folder/storage_health'
import type { ActivityLog } from '#core/activity/activity_log'

/**
 * The Storage full alert's switch in Settings > Notifications (on by default): the disk under the
 * data folder is full, and when it has room again.
 */
export const storageAlertSettings = [
  sectionFields('notifications', {
    defaults: { storageFullAlert: true },
    change: { storageFullAlert: vine.boolean({ strict: true }) },
  }),
]

declare module '#core/settings/settings_catalogue' {
  interface RegisteredSettings {
    storageAlerts: typeof storageAlertSettings
  }
}

/**
 * The Storage full alert: a live notice to every signed-in dashboard, and an e-mail to the
 * administrator addresses, when the disk fills and when it has room again. No SMS: queuing
 * one is a write, which the full disk refuses. Once there is room, the Activity log keeps the
 * episode (`storage.full`, with when it began and ended), whatever the alert's setting.
 */
export class StorageFullAlerts implements StorageAlerts {
  constructor(
    private settings: () => Promise<SettingsStore>,
    private mailer: AlertMailer,
    private notices: LiveNotices,
    private activity: () => Promise<ActivityLog>,
    private logger: Logger
  ) {}

  async full(since: Date): Promise<void> {
    const message = "The data folder's disk is full: the gateway refuses writes (new messages, reports, changes) until space is freed. Reads and exports go on."
    await this.#send('storage.full', message, since, 'Disk full: the SMS gateway refuses writes')
  }

  async spaceBack(fullSince: Date, at: Date): Promise<void> {
    const message = `The data folder's disk has room again: writes go through since ${at.toISOString()} (full since ${fullSince.toISOString()}).`
    await (await this.activity())
      .warning('storage', 'storage.full', "The data folder's disk was full: writes were refused until it had room again", {
        fullSince: fullSince.toISOString(),
        until: at.toISOString(),
      })
      .catch((error) => this.logger.warn({ err: error }, 'the full disk could not be written in the Activity log'))
    await this.#send('storage.recovered', message, at, 'Disk has room again: the SMS gateway takes writes')
  }

  async #send(type: string, message: string, at: Date, subject: string): Promise<void> {
    const notifications = await (await this.settings()).get('notifications')
    if (!notifications.storageFullAlert) return
    await this.notices.publish({ type, message, at: at.toISOString() }).catch((error) => this.logger.warn({ err: error }, 'the storage alert could not reach the dashboards'))
    try {
      const mailed = await this.mailer.send(subject, `SMS gateway: ${message}`)
      if (!mailed.sent && notifications.adminEmails.length) this.logger.warn({ reason: mailed.reason }, 'the storage alert was not e-mailed')
    } catch (error) {
      this.logger.warn({ err: error }, 'the storage alert could not be e-mailed')
    }
  }
}
