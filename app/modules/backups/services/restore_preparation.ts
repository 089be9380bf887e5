import { randomUUID } from 'node:crypto'
import { constants } from 'node:fs'
import { copyFile, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { inject } from '@adonisjs/core'
import { ApiError } from '#core/http/api_error'
import { Clock } from '#core/time/clock'
import { inspectDatabaseFile, knownMigrations } from '#core/database/database_inspection'
import { BackupCatalogue } from '#modules/backups/services/backup_catalogue'
import { BackupFolders } from '#modules/backups/services/backup_folders'
import { restoreFiles, sha256Of, type PreparedRestore } from '#modules/backups/services/restore_files'
import type { RestorePrepared, RestoreStatus } from '#modules/backups/schemas'

/** Temporary files of a preparation, each of its own; any left in restore/ were cut short. */
const TEMPORARY = /\.partial$/

/**
 * Lets one restore preparation (or cancellation) run at a time in this process; shared by every
 * request (a container singleton). A second is refused rather than queued: a double click or a
 * client's retry would otherwise repeat the whole check (minutes on a big file) only to replace
 * the first preparation with the same one, or, with another name, make the announced backup
 * depend on which check happened to finish last. The caller is told to wait and look at
 * GET /backups/restore, which names what was prepared.
 */
export class RestoreGate {
  #busy = false

  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.#busy) {
      throw new ApiError('RESTORE_IN_PROGRESS', 'A restore is being prepared: wait for it to finish, then see GET /backups/restore')
    }
    this.#busy = true
    try {
      return await work()
    } finally {
      this.#busy = false
    }
  }
}

/**
 * POST /backups/{name}/restore and its lifecycle (docs/operations.md, Restoring a backup): the
 * backup is checked, copied into restore/ with a record of what was checked, and nothing else
 * happens until the next start swaps it in. Preparing another replaces the earlier one.
 */
@inject()
export class RestorePreparation {
  constructor(
    private catalogue: BackupCatalogue,
    private gate: RestoreGate,
    private folders: BackupFolders,
    private clock: Clock
  ) {}

  async prepare(name: string): Promise<RestorePrepared> {
    const source = await this.catalogue.pathOf(name)
    return this.gate.exclusive(async () => {
      const files = restoreFiles(this.folders.restoreDir)
      await mkdir(this.folders.restoreDir, { recursive: true, mode: 0o700 })
      await this.#removeTemporaryFiles()
      // The copy is what gets checked (one full integrity check, the costly part on a big file):
      // what is swapped in at start is exactly what passed here, and its checksum is recorded.
      const copy = join(this.folders.restoreDir, `pending-${randomUUID()}.db.partial`)
      const record = join(this.folders.restoreDir, `pending-${randomUUID()}.json.partial`)
      try {
        await copyFile(source, copy, constants.COPYFILE_EXCL)
        const inspection = await inspectDatabaseFile(copy, await knownMigrations(this.folders.migrationsDir))
        if (!inspection.usable) {
          if (inspection.problem === 'too_recent') {
            throw new ApiError('BACKUP_SCHEMA_TOO_RECENT', 'This copy was made by a newer gateway version: update, then retry', {
              unknownMigrations: inspection.unknownMigrations,
            })
          }
          throw new ApiError('BACKUP_UNREADABLE', `The file cannot be restored: ${inspection.reason}`)
        }
        const manifest: PreparedRestore = { name, sha256: await sha256Of(copy), size: (await stat(copy)).size, preparedAt: this.clock.now().toISOString() }
        await writeFile(record, JSON.stringify(manifest), { mode: 0o600 })
        // The earlier record goes first, then the copy, then its record (renamed whole): an
        // interruption leaves nothing pending rather than a record beside another copy.
        await rm(files.manifest, { force: true })
        await rename(copy, files.copy)
        await rename(record, files.manifest)
        return { restartRequired: true as const }
      } finally {
        await rm(copy, { force: true })
        await rm(record, { force: true })
      }
    })
  }

  async status(): Promise<RestoreStatus> {
    try {
      const manifest = JSON.parse(await readFile(restoreFiles(this.folders.restoreDir).manifest, 'utf8')) as PreparedRestore
      return { pending: true, name: manifest.name }
    } catch {
      return { pending: false }
    }
  }

  async cancel(): Promise<void> {
    await this.gate.exclusive(async () => {
      const files = restoreFiles(this.folders.restoreDir)
      await rm(files.manifest, { force: true })
      await rm(files.copy, { force: true })
      await this.#removeTemporaryFiles()
    })
  }

  async #removeTemporaryFiles() {
    const names = await readdir(this.folders.restoreDir).catch(() => [] as string[])
    for (const name of names.filter((entry) => TEMPORARY.test(entry))) await rm(join(this.folders.restoreDir, name), { force: true })
  }
}
