import { ApiError } from '#core/http/api_error'
import { fileStamp } from '#core/time/file_stamp'

/**
 * A backup's name (docs/operations.md, Backups) ends in .db, starts with a letter or digit, and
 * holds only letters, digits, dots, dashes and underscores. No slash can pass, so no name leaves
 * backups/.
 */
const BACKUP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,196}\.db$/

export function isBackupName(name: string): boolean {
  return BACKUP_NAME.test(name)
}

/** A name from a URL: refused as unknown (404) when it breaks the rule, so nothing outside is touched. */
export function backupNameParam(value: unknown): string {
  if (typeof value !== 'string' || !isBackupName(value)) throw ApiError.notFound('Backup')
  return value
}

/** `gateway-20261121-030000.db`: sorts by time, readable by an operator listing the folder. */
export function backupNameAt(date: Date): string {
  return `gateway-${fileStamp(date)}.db`
}
