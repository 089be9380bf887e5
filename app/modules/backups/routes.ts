import { backupPermissions } from '#modules/backups/permissions'
import { defineRoutes } from '#core/contract/route_contract'
import { pageOf } from '#core/contract/schemas'
import type { RouteRegistry } from '#core/contract/route_registry'
import { pageQueryValidator } from '#core/pagination/keyset_page'
import { backupSchemas } from '#modules/backups/schemas'

const BackupsController = () => import('#modules/backups/controllers/backups_controller')

/** Backups of the database (docs/operations.md). */
export function backupRoutes(registry: RouteRegistry) {
  registry.describeTag('Backups', 'Consistent copies of the database in backups/: taking, listing, downloading (docs/operations.md)')
  const { attempt, backup, schedule, restoreStatus, restorePrepared } = backupSchemas(registry)
  const nameParam = { name: 'Backup file name: ends in .db, starts with a letter or digit; letters, digits, dots, dashes, underscores' }

  return defineRoutes([
    {
      method: 'POST',
      path: '/api/v1/backups',
      operationId: 'createBackup',
      summary: 'Take a backup now',
      description:
        'A consistent copy of the live database, read back and verified, flushed to disk, then renamed into backups/. ' +
        'One backup at a time: a request during another waits for it. A failure answers 503 BACKUP_FAILED with the ' +
        'attempt in details, emits backup.failed and sends the Backup failed alert. Does not shift the schedule.',
      tag: 'Backups',
      access: backupPermissions['backups.change'],
      answer: { status: 201, description: 'The successful attempt', schema: attempt },
      errors: ['BACKUP_FAILED'],
      handler: [BackupsController, 'store'],
    },
    {
      method: 'GET',
      path: '/api/v1/backups',
      operationId: 'listBackups',
      summary: 'Available backups, newest first',
      tag: 'Backups',
      access: backupPermissions['backups.read'],
      answer: { status: 200, description: 'Every backup file (nextCursor is always null)', schema: pageOf(backup) },
      handler: [BackupsController, 'index'],
    },
    {
      method: 'GET',
      path: '/api/v1/backups/attempts',
      operationId: 'listBackupAttempts',
      summary: 'Every backup attempt, failures included, newest first',
      tag: 'Backups',
      access: backupPermissions['backups.read'],
      query: pageQueryValidator,
      answer: { status: 200, description: 'A page of attempts', schema: pageOf(attempt) },
      handler: [BackupsController, 'attempts'],
    },
    {
      method: 'POST',
      path: '/api/v1/backups/:name/restore',
      operationId: 'prepareRestore',
      summary: 'Check a backup and prepare it to replace the database at the next start',
      description:
        'Nothing is replaced now. At the next start, before anything opens the database, the current one is kept as ' +
        'gateway.db.pre-restore-<timestamp> and the prepared copy takes its place; an older schema is upgraded. ' +
        'Preparing another replaces the earlier preparation. One preparation at a time: a request while one is being ' +
        'checked (a double click, a retry) is refused with 409 RESTORE_IN_PROGRESS; GET /backups/restore then names the ' +
        'one prepared. A failed swap never stops the gateway: it starts on its existing database and the logs say why.',
      tag: 'Backups',
      access: backupPermissions['backups.change'],
      params: nameParam,
      answer: {
        status: 202,
        description: 'Prepared; restart the gateway to apply it',
        schema: restorePrepared,
      },
      errors: ['NOT_FOUND', 'BACKUP_UNREADABLE', 'BACKUP_SCHEMA_TOO_RECENT', 'RESTORE_IN_PROGRESS'],
      handler: [BackupsController, 'prepareRestore'],
    },
    {
      method: 'GET',
      path: '/api/v1/backups/restore',
      operationId: 'getPendingRestore',
      summary: 'Whether a restore is prepared for the next start',
      tag: 'Backups',
      access: backupPermissions['backups.read'],
      answer: {
        status: 200,
        description: '{pending: true, name} or {pending: false}',
        schema: restoreStatus,
      },
      handler: [BackupsController, 'restoreStatus'],
    },
    {
      method: 'DELETE',
      path: '/api/v1/backups/restore',
      operationId: 'cancelRestore',
      summary: 'Cancel a prepared restore',
      description: 'Refused with 409 RESTORE_IN_PROGRESS while a preparation is being checked: cancel once it is done.',
      tag: 'Backups',
      access: backupPermissions['backups.change'],
      answer: { status: 204, description: 'Nothing prepared any more' },
      errors: ['RESTORE_IN_PROGRESS'],
      handler: [BackupsController, 'cancelRestore'],
    },
    {
      method: 'GET',
      path: '/api/v1/backups/schedule',
      operationId: 'getBackupSchedule',
      summary: 'When automatic backups run, and the next one',
      description: 'Set with PATCH /settings {backup: {...}}; a change applies within a minute. nextRunAt is null when automatic backup is off.',
      tag: 'Backups',
      access: backupPermissions['backups.read'],
      answer: {
        status: 200,
        description: 'The schedule',
        schema: schedule,
      },
      handler: [BackupsController, 'schedule'],
    },
    {
      method: 'GET',
      path: '/api/v1/backups/:name/download',
      operationId: 'downloadBackup',
      summary: 'Download a backup file',
      description: 'Keeps working while the license is withdrawn.',
      tag: 'Backups',
      access: backupPermissions['backups.read'],
      params: nameParam,
      answer: { status: 200, description: 'The .db file', contentType: 'application/vnd.sqlite3', schema: { type: 'string', format: 'binary' } },
      errors: ['NOT_FOUND'],
      handler: [BackupsController, 'download'],
    },
  ])
}

/** The module's contracts as typed, for its handlers' input (`routeInputs<BackupRoutes>()`). */
export type BackupRoutes = ReturnType<typeof backupRoutes>
