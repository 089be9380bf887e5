import vine from '@vinejs/vine'
import { sectionFields } from '#core/contract/module_vocabulary'

/** Settings > Backup: the section answers 422 on an out-of-range value (docs/operations.md, The schedule). */
const backupDefaults = {
  enabled: true,
  frequency: 'daily' as 'daily' | 'interval',
  dailyAt: '03:00',
  intervalHours: 24,
  retention: 7,
}

/** Settings > Notifications: the Backup failed alert is on by default (docs/operations.md, The Backup failed alert). */
const alertDefaults = {
  backupFailedAlert: true,
}

type BackupSettings = typeof backupDefaults
type BackupAlertSettings = typeof alertDefaults

declare module '#core/settings/settings_catalogue' {
  interface SettingsSections {
    backup: BackupSettings
  }
  interface NotificationSettings extends BackupAlertSettings {}
}

export const backupSettings = [
  sectionFields('backup', {
    defaults: backupDefaults,
    change: {
      enabled: vine.boolean({ strict: true }),
      frequency: vine.enum(['daily', 'interval'] as const),
      dailyAt: vine.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/),
      intervalHours: vine.number({ strict: true }).withoutDecimals().range([1, 168]),
      retention: vine.number({ strict: true }).withoutDecimals().range([1, 365]),
    },
    outOfRangeIs422: true,
  }),
  sectionFields('notifications', {
    defaults: alertDefaults,
    change: { backupFailedAlert: vine.boolean({ strict: true }) },
  }),
]
