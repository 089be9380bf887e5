import { mkdir, open, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Database } from '@adonisjs/lucid/database'
import type { Logger } from '@adonisjs/core/logger'
import type { Clock } from '#core/time/clock'
import type { ActivityLog } from '#core/activity/activity_log'
import type { PublicEvent, PublicEventName } from '#core/events/public_events'
import { logSafeError } from '#core/logging/redaction'
import { snapshotDatabase } from '#core/database/database_snapshot'
import { inspectDatabaseFile, knownMigrations } from '#core/database/database_inspection'
import { backupNameAt } from '#modules/backups/services/backup_names'
import type { BackupAttempt } from '#modules/backups/schemas'

export type BackupOrigin = BackupAttempt['origin']

/** An attempt as the API answers it (schemas.ts): its `reason` is short, e.g. "disk full: the snapshot could not be written". */
export type { BackupAttempt }

export interface BackupEngineDeps {
  db: Database
  clock: Clock
  logger: Logger
  activity: ActivityLog
  databaseFile: string
  backupsDir: string
  migrationsDir: string
  emit: (event: PublicEventName, payload: PublicEvent) => Promise<void>
  /** Applies retention after a success (never after a failure). */
  afterSuccess: () => Promise<void>
  /** Sends the Backup failed alert to the configured channels. */
  alert: (attempt: BackupAttempt) => Promise<void>
  /** Writes the copy; tests inject a failing one (a full disk). */
  snapshot?: (source: string, target: string) => Promise<void>
  /** Told each step of an attempt as it starts (the dashboard's live progress); never waited for. */
  progress?: (step: BackupProgress) => void
}

/** Where an attempt is: started, then copying, verifying, saving, then finished with its outcome. */
export type BackupProgress =
  | { step: 'copying' | 'verifying' | 'saving'; name: string; origin: BackupOrigin }
  | { step: 'finished'; name: string; origin: BackupOrigin; outcome: 'success' | 'failed' }

/**
 * Takes a backup (docs/operations.md, Backups): a consistent copy of the live database written to a
 * temporary name in backups/, read back and verified (integrity, this product's schema at a known
 * version), flushed to disk, then renamed to its final name. Only then is it a success. On any
 * failure the partial file is deleted, the attempt is recorded as failed with a short reason,
 * `backup.failed` is emitted, the Activity log gets an error and the alert goes out. One backup at
 * a time: a second request waits for the first.
 */
export class BackupEngine {
  #queue: Promise<unknown> = Promise.resolve()
  #running = false

  constructor(private deps: BackupEngineDeps) {}

  /** The same engine with some of its parts replaced (tests: a disk that fills up, a manual clock). */
  with(overrides: Partial<BackupEngineDeps>): BackupEngine {
    return new BackupEngine({ ...this.deps, ...overrides })
  }

  get busy(): boolean {
    return this.#running
  }

  run(origin: BackupOrigin): Promise<BackupAttempt> {
    const attempt = this.#queue.then(() => this.#attempt(origin))
    this.#queue = attempt.catch(() => {})
    return attempt
  }

  async #attempt(origin: BackupOrigin): Promise<BackupAttempt> {
    this.#running = true
    try {
      return await this.#write(origin)
    } finally {
      this.#running = false
    }
  }

  async #write(origin: BackupOrigin): Promise<BackupAttempt> {
    const { clock, backupsDir } = this.deps
    const startedAt = clock.now()
    const name = await this.#freeName(startedAt)
    const partial = join(backupsDir, `.partial-${name}`)
    const final = join(backupsDir, name)
    const progress = (step: 'copying' | 'verifying' | 'saving') => this.deps.progress?.({ step, name, origin })
    try {
      progress('copying')
      // Inside the attempt: a folder that cannot be made (a file in its place, no permission)
      // is a failed backup like any other, recorded and alerted, not an unexpected error.
      await mkdir(backupsDir, { recursive: true, mode: 0o700 }).catch((error) => {
        throw new BackupFailure(`the backups folder cannot be written (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
      })
      await rm(partial, { force: true })
      await (this.deps.snapshot ?? snapshotDatabase)(this.deps.databaseFile, partial)
      progress('verifying')
      const inspection = await inspectDatabaseFile(partial, await knownMigrations(this.deps.migrationsDir))
      if (!inspection.usable) throw new BackupFailure(`the copy did not read back: ${inspection.reason}`)
      progress('saving')
      await flushFile(partial)
      await rename(partial, final)
      await flushFile(backupsDir)
      const { size } = await stat(final)
      const attempt = await this.#record({ name, origin, outcome: 'success', reason: null, size, startedAt })
      this.deps.progress?.({ step: 'finished', name, origin, outcome: 'success' })
      await this.deps.emit('backup.completed', { id: name, status: 'ok', at: clock.now() })
      await this.deps.afterSuccess().catch((error) => this.deps.logger.error({ err: logSafeError(error) }, 'backup retention failed'))
      return attempt
    } catch (error) {
      await rm(partial, { force: true }).catch(() => {})
      const reason = reasonOf(error)
      this.deps.logger.error({ err: logSafeError(error), backup: name }, 'backup failed')
      const attempt = await this.#record({ name, origin, outcome: 'failed', reason, size: null, startedAt })
      this.deps.progress?.({ step: 'finished', name, origin, outcome: 'failed' })
      await this.deps.emit('backup.failed', { id: name, status: 'failed', at: clock.now() })
      await this.deps.activity.error('backups', 'backup.failed', `Backup ${name} failed: ${reason}`, { backup: name, origin })
      await this.deps.alert(attempt).catch((alertError) => this.deps.logger.error({ err: logSafeError(alertError) }, 'backup alert failed'))
      return attempt
    }
  }

  /** Two backups in the same second get `-2`, `-3`… */
  async #freeName(at: Date): Promise<string> {
    const base = backupNameAt(at)
    for (let index = 1; ; index++) {
      const name = index === 1 ? base : base.replace(/\.db$/, `-${index}.db`)
      const taken = await stat(join(this.deps.backupsDir, name)).then(
        () => true,
        () => false
      )
      if (!taken) return name
    }
  }

  async #record(fields: Omit<BackupAttempt, 'id' | 'startedAt' | 'finishedAt'> & { startedAt: Date }): Promise<BackupAttempt> {
    const finishedAt = this.deps.clock.now().toISOString()
    const row = {
      name: fields.name,
      origin: fields.origin,
      outcome: fields.outcome,
      reason: fields.reason,
      size: fields.size,
      started_at: fields.startedAt.toISOString(),
      finished_at: finishedAt,
    }
    const [inserted] = await this.deps.db.table('backup_attempts').insert(row).returning('id')
    const id = typeof inserted === 'object' ? inserted.id : inserted
    return { id: String(id), ...fields, startedAt: row.started_at, finishedAt }
  }
}

class BackupFailure extends Error {}

/** A short reason an operator can act on; never a path or a stack. */
function reasonOf(error: unknown): string {
  if (error instanceof BackupFailure) return error.message
  const code = (error as { code?: string })?.code
  const message = String((error as Error)?.message ?? '')
  if (code === 'ENOSPC' || /SQLITE_FULL|disk is full|ENOSPC/i.test(message)) return 'disk full: the snapshot could not be written'
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied: the snapshot could not be written'
  return `the snapshot could not be written${code ? ` (${code})` : ''}`
}

/** fsync: the copy is on disk before it is called a backup (a rename alone may not be). */
async function flushFile(path: string) {
  const handle = await open(path, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
