/** The documented defaults of the backups module's settings fields (docs/operations.md, The schedule; The Backup failed alert). */
export default {
  backup: { enabled: true, frequency: 'daily', dailyAt: '03:00', intervalHours: 24, retention: 7 },
  notifications: { backupFailedAlert: true },
}
