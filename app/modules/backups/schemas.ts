import type { RouteRegistry } from '#core/contract/route_registry'
import type { JsonOf } from '#core/contract/typed_schema'
import { isoDateTimeSchema } from '#core/contract/schemas'

/** One backup attempt, failed or not; `BackupAttemptStore.page` (stores/backup_attempt_store.ts) and the engine answer it. */
export const backupAttemptSchema = {
  type: 'object',
  required: ['id', 'name', 'origin', 'outcome', 'reason', 'size', 'startedAt', 'finishedAt'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string', description: 'The file written (deleted again when the attempt failed)' },
    origin: { enum: ['scheduled', 'manual'] },
    outcome: { enum: ['success', 'failed'] },
    reason: { type: ['string', 'null'], description: 'Short reason of a failure' },
    size: { type: ['integer', 'null'], description: 'Bytes, on success' },
    startedAt: isoDateTimeSchema,
    finishedAt: isoDateTimeSchema,
  },
} as const
export type BackupAttempt = JsonOf<typeof backupAttemptSchema>

/** A file of backups/; `BackupCatalogue.list` answers it. */
export const backupFileSchema = {
  type: 'object',
  required: ['name', 'origin', 'journalled', 'size', 'createdAt'],
  properties: {
    name: { type: 'string' },
    origin: { enum: ['Scheduled', 'Manual', 'Imported'] },
    journalled: { type: 'boolean', description: 'False for a file placed in backups/ by hand (Imported)' },
    size: { type: 'integer' },
    createdAt: isoDateTimeSchema,
  },
} as const
export type BackupFile = JsonOf<typeof backupFileSchema>

/** `BackupSchedule.state` answers it. */
export const backupScheduleSchema = {
  type: 'object',
  required: ['enabled', 'frequency', 'dailyAt', 'timezone', 'intervalSeconds', 'retention', 'lastAttemptAt', 'nextRunAt', 'savedAt'],
  properties: {
    enabled: { type: 'boolean' },
    frequency: { enum: ['daily', 'interval'] },
    dailyAt: { type: 'string', pattern: '^\\d{2}:\\d{2}$', description: 'HH:MM in the platform time zone' },
    timezone: { type: 'string', description: 'The platform time zone (Settings > Sending)' },
    intervalSeconds: { type: 'integer' },
    retention: { type: 'integer', minimum: 1, maximum: 365 },
    lastAttemptAt: { type: ['string', 'null'], format: 'date-time', description: 'The last automatic attempt, failed or not' },
    nextRunAt: { type: ['string', 'null'], format: 'date-time', description: 'null when off; now when due on the next pass' },
    savedAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When the schedule was last saved (PATCH /settings {backup}); null while it runs on the defaults no one saved',
    },
  },
} as const
export type BackupScheduleState = JsonOf<typeof backupScheduleSchema>

/** `RestorePreparation.status` answers it. */
export const restoreStatusSchema = {
  oneOf: [
    { type: 'object', required: ['pending', 'name'], properties: { pending: { const: true }, name: { type: 'string' } } },
    { type: 'object', required: ['pending'], properties: { pending: { const: false } } },
  ],
} as const
export type RestoreStatus = JsonOf<typeof restoreStatusSchema>

/** `RestorePreparation.prepare` answers it. */
export const restorePreparedSchema = { type: 'object', required: ['restartRequired'], properties: { restartRequired: { const: true } } } as const
export type RestorePrepared = JsonOf<typeof restorePreparedSchema>

/** The module's answers as published in the OpenAPI document (the two resources as components). */
export function backupSchemas(registry: RouteRegistry) {
  return {
    attempt: registry.addSchema('BackupAttempt', backupAttemptSchema),
    backup: registry.addSchema('BackupFile', backupFileSchema),
    schedule: backupScheduleSchema,
    restoreStatus: restoreStatusSchema,
    restorePrepared: restorePreparedSchema,
  }
}
