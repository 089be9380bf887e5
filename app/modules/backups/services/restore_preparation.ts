import { copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { ApiError } from '#core/http/api_error'
import { inspectDatabaseFile, knownMigrations } from '#core/database/database_inspection'
import type { BackupCatalogue } from '#modules/backups/services/backup_catalogue'
import { restoreFiles, sha256Of, type PreparedRestore } from '#modules/backups/services/restore_files'

/**
 * POST /backups/{name}/restore and its lifecycle (spec, Backup restore lifecycle): the backup is
 * checked, copied into restore/ with a record of what was checked, and nothing else happens
 * until the next start swaps it in. Preparing another replaces the earlier one.
 */
export class RestorePreparation {
  constructor(
    private catalogue: BackupCatalogue,
    private restoreDir: string,
    private migrationsDir: string,
    private now: () => Date
  ) {}

  async prepare(name: string): Promise<{ restartRequired: true }> {
    const source = await this.catalogue.pathOf(name)
    const files = restoreFiles(this.restoreDir)
    await mkdir(this.restoreDir, { recursive: true, mode: 0o700 })
    // The copy is what gets checked (one full integrity check, the costly part on a big file):
    // what is swapped in at start is exactly what passed here.
    const partial = `${files.copy}.partial`
    await copyFile(source, partial)
    const inspection = await inspectDatabaseFile(partial, await knownMigrations(this.migrationsDir))
    if (!inspection.usable) {
      await rm(partial, { force: true })
      if (inspection.problem === 'too_recent') {
        throw new ApiError('BACKUP_SCHEMA_TOO_RECENT', 'This copy was made by a newer gateway version: update, then retry', {
          unknownMigrations: inspection.unknownMigrations,
        })
      }
      throw new ApiError('BACKUP_UNREADABLE', `The file cannot be restored: ${inspection.reason}`)
    }
    const manifest: PreparedRestore = { name, sha256: await sha256Of(partial), size: (await stat(partial)).size, preparedAt: this.now().toISOString() }
    await rm(files.manifest, { force: true })
    await rename(partial, files.copy)
    await writeFile(files.manifest, JSON.stringify(manifest), { mode: 0o600 })
    return { restartRequired: true }
  }

  async status(): Promise<{ pending: true; name: string } | { pending: false }> {
    try {
      const manifest = JSON.parse(await readFile(restoreFiles(this.restoreDir).manifest, 'utf8')) as PreparedRestore
      return { pending: true, name: manifest.name }
    } catch {
      return { pending: false }
    }
  }

  async cancel(): Promise<void> {
    const files = restoreFiles(this.restoreDir)
    await rm(files.manifest, { force: true })
    await rm(files.copy, { force: true })
  }
}
