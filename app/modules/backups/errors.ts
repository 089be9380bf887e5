import { defineErrorKinds, type KindsOf } from '#core/http/api_error'

/** Refusals of backups and restore preparation (docs/operations.md, Backups and Restoring a backup). */
export const backupErrors = defineErrorKinds({
  BACKUP_UNREADABLE: { status: 422, code: 'BACKUP_UNREADABLE', description: 'File damaged or not a backup of this product' },
  BACKUP_SCHEMA_TOO_RECENT: { status: 422, code: 'BACKUP_SCHEMA_TOO_RECENT', description: 'Copy made by a newer gateway version' },
  BACKUP_FAILED: { status: 503, code: 'BACKUP_FAILED', description: 'The backup failed' },
  RESTORE_IN_PROGRESS: {
    status: 409,
    code: 'RESTORE_IN_PROGRESS',
    description: 'A restore is being prepared or cancelled: try again once it has finished (GET /backups/restore says which is pending)',
  },
})

declare module '#core/http/api_error' {
  interface ApiErrorKinds extends KindsOf<typeof backupErrors> {}
}
