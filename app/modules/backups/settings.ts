import vine from '@vinejs/vine'
import { sectionFields } from '#core/contract/module_vocabulary'

export const backupSettings = [
  // Settings > Backup: the section answers 422 on an out-of-range value (docs/operations.md, The schedule).
  sectionFields('backup', {
    defaults: {
      enabled: true,
      frequency: 'daily',
      dailyAt: '03:00',
      intervalHours: 24,
      retention: 7,
    },
    change: {
      enabled: vine.boolean({ strict: true }),
      frequency: vine.enum(['daily', 'interval'] as const),
      dailyAt: vine.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/),
      intervalHours: vine.number({ strict: true }).withoutDecimals().range([1, 168]),
      retention: vine.number({ strict: true }).withoutDecimals().range([1, 365]),
    },
    outOfRangeIs422: true,
  }),
  // Settings > Notifications: the Backup failed alert is on by default (docs/operations.md, The Backup failed alert).
  sectionFields('notifications', {
    defaults: { backupFailedAlert: true },
    change: { backupFailedAlert: vine.boolean({ strict: true }) },
  }),
]

declare module '#core/settings/settings_catalogue' {
  interface RegisteredSettings {
    backups: typeof backupSettings
  }
}
