import { mkdir, open, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { inject } from '@adonisjs/core'
import { Logger } from '@adonisjs/core/logger'
import { Emitter } from '@adonisjs/core/events'
import { Clock } from '#core/time/clock'
import type { Caller } from '#core/http/access'
import { ActivityLog } from '#core/activity/activity_log'
import { SettingsStore } from '#core/settings/settings_store'
import { logSafeError } from '#core/logging/redaction'
import { snapshotDatabase } from '#core/database/database_snapshot'
import { inspectDatabaseFile, knownMigrations } from '#core/database/database_inspection'
import { backupNameAt } from '#modules/backups/services/backup_names'
import { BackupFolders } from '#modules/backups/services/backup_folders'
import { BackupCatalogue } from '#modules/backups/services/backup_catalogue'
import { BackupAlerts } from '#modules/backups/services/backup_alerts'
import { BackupProgressChannel } from '#modules/backups/listeners/live_backups'
import { BackupAttemptStore } from '#modules/backups/stores/backup_attempt_store'
import type { BackupAttempt } from '#modules/backups/schemas'

export type BackupOrigin = BackupAttempt['origin']

/** An attempt as the API answers it (schemas.ts): its `reason` is short, e.g. "disk full: the snapshot could not be written". */
export type { BackupAttempt }

/** Writes the copy of the live database; a test swaps in one that fails (a full disk). */
export class BackupSnapshot {
  copy(source: string, target: string): Promise<void> {
    return snapshotDatabase(source, target)
  }
}

/**
 * One backup at a time in this process, whichever engine runs it: a container singleton, shared
 * by the controller's engine and the one resolved for each schedule pass.
 */
export class BackupTurns {
  #queue: Promise<unknown> = Promise.resolve()
  #running = false

  get busy(): boolean {
    return this.#running
  }

  take<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.#queue.then(async () => {
      this.#running = true
      try {
        return await work()
      } finally {
        this.#running = false
      }
    })
    this.#queue = turn.catch(() => {})
    return turn
  }
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
@inject()
export class BackupEngine {
  constructor(
    private folders: BackupFolders,
    private attempts: BackupAttemptStore,
    private snapshot: BackupSnapshot,
    private turns: BackupTurns,
    private clock: Clock,
    private logger: Logger,
    private activity: ActivityLog,
    private emitter: Emitter<any>,
    private settings: SettingsStore,
    private catalogue: BackupCatalogue,
    private alerts: BackupAlerts,
    private progress: BackupProgressChannel
  ) {}

  get busy(): boolean {
    return this.turns.busy
  }

  /** `by`: the caller of a manual backup, named by the entry of its failure (null: the schedule). */
  run(origin: BackupOrigin, by: Caller | null): Promise<BackupAttempt> {
    return this.turns.take(() => this.#write(origin, by))
  }

  async #write(origin: BackupOrigin, by: Caller | null): Promise<BackupAttempt> {
    const { clock } = this
    const { backupsDir } = this.folders
    const startedAt = clock.now()
    const name = await this.#freeName(startedAt)
    const partial = join(backupsDir, `.partial-${name}`)
    const final = join(backupsDir, name)
    const progress = (step: 'copying' | 'verifying' | 'saving') => this.progress.tell({ step, name, origin })
    try {
      progress('copying')
      // Inside the attempt: a folder that cannot be made (a file in its place, no permission)
      // is a failed backup like any other, recorded and alerted, not an unexpected error.
      await mkdir(backupsDir, { recursive: true, mode: 0o700 }).catch((error) => {
        throw new BackupFailure(`the backups folder cannot be written (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
      })
      await rm(partial, { force: true })
      await this.snapshot.copy(this.folders.databaseFile, partial)
      progress('verifying')
      const inspection = await inspectDatabaseFile(partial, await knownMigrations(this.folders.migrationsDir))
      if (!inspection.usable) throw new BackupFailure(`the copy did not read back: ${inspection.reason}`)
      progress('saving')
      await flushFile(partial)
      await rename(partial, final)
      await flushFile(backupsDir)
      const { size } = await stat(final)
      const attempt = await this.#record({ name, origin, outcome: 'success', reason: null, size, startedAt })
      this.progress.tell({ step: 'finished', name, origin, outcome: 'success' })
      await this.emitter.emit('backup.completed', { id: name, status: 'ok', at: clock.now() })
      await this.#applyRetention().catch((error) => this.logger.error({ err: logSafeError(error) }, 'backup retention failed'))
      return attempt
    } catch (error) {
      await rm(partial, { force: true }).catch(() => {})
      const reason = reasonOf(error)
      this.logger.error({ err: logSafeError(error), backup: name }, 'backup failed')
      const attempt = await this.#record({ name, origin, outcome: 'failed', reason, size: null, startedAt })
      this.progress.tell({ step: 'finished', name, origin, outcome: 'failed' })
      await this.emitter.emit('backup.failed', { id: name, status: 'failed', at: clock.now() })
      await this.activity.actingFor(by).error('backups', 'backup.failed', `Backup ${name} failed: ${reason}`, { backup: name, origin })
      await this.alerts.backupFailed(attempt).catch((alertError) => this.logger.error({ err: logSafeError(alertError) }, 'backup alert failed'))
      return attempt
    }
  }

  /** Retention after a success, never after a failure. */
  async #applyRetention() {
    const { retention } = await this.settings.get('backup')
    await this.catalogue.applyRetention(retention)
  }

  /** Two backups in the same second get `-2`, `-3`… */
  async #freeName(at: Date): Promise<string> {
    const base = backupNameAt(at)
    for (let index = 1; ; index++) {
      const name = index === 1 ? base : base.replace(/\.db$/, `-${index}.db`)
      const taken = await stat(join(this.folders.backupsDir, name)).then(
        () => true,
        () => false
      )
      if (!taken) return name
    }
  }

  async #record(fields: Omit<BackupAttempt, 'id' | 'startedAt' | 'finishedAt'> & { startedAt: Date }): Promise<BackupAttempt> {
    const recorded = { ...fields, startedAt: fields.startedAt.toISOString(), finishedAt: this.clock.now().toISOString() }
    return { id: await this.attempts.add(recorded), ...recorded }
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
