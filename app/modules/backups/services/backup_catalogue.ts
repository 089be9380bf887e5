import { readdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { inject } from '@adonisjs/core'
import { ApiError } from '#core/http/api_error'
import { BackupFolders } from '#modules/backups/services/backup_folders'
import { BackupAttemptStore } from '#modules/backups/stores/backup_attempt_store'
import { isBackupName } from '#modules/backups/services/backup_names'
import type { BackupFile } from '#modules/backups/schemas'

export type { BackupFile }

/**
 * The files of backups/: every `.db` file whose name follows the backup name rule
 * (backup_names.ts), written by the gateway (journalled in backup_attempts) or placed there by hand
 * (Imported). Retention counts them all.
 */
@inject()
export class BackupCatalogue {
  constructor(
    private attempts: BackupAttemptStore,
    private folders: BackupFolders
  ) {}

  /** Newest first. */
  async list(): Promise<BackupFile[]> {
    let names: string[]
    try {
      names = (await readdir(this.folders.backupsDir)).filter(isBackupName)
    } catch {
      return []
    }
    const journal = new Map<string, { origin: string; finished_at: string }>()
    if (names.length) {
      for (const row of await this.attempts.successesNamed(names)) journal.set(row.name, row)
    }
    const files: BackupFile[] = []
    for (const name of names) {
      const info = await stat(join(this.folders.backupsDir, name)).catch(() => null)
      if (!info?.isFile()) continue
      const entry = journal.get(name)
      files.push({
        name,
        origin: entry ? (entry.origin === 'scheduled' ? 'Scheduled' : 'Manual') : 'Imported',
        journalled: Boolean(entry),
        size: info.size,
        createdAt: entry ? entry.finished_at : info.mtime.toISOString(),
      })
    }
    return files.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.name < b.name ? 1 : -1))
  }

  /** The path of a listed backup; 404 for any other name. */
  async pathOf(name: string): Promise<string> {
    if (!isBackupName(name)) throw ApiError.notFound('Backup')
    const path = join(this.folders.backupsDir, name)
    const info = await stat(path).catch(() => null)
    if (!info?.isFile()) throw ApiError.notFound('Backup')
    return path
  }

  /**
   * Retention (docs/operations.md, The schedule): after a successful backup the oldest copies
   * beyond the count are deleted, automatic, manual and imported together. Returns the names
   * deleted.
   */
  async applyRetention(keep: number): Promise<string[]> {
    const surplus = (await this.list()).slice(keep)
    for (const file of surplus) await rm(join(this.folders.backupsDir, file.name), { force: true })
    return surplus.map((file) => file.name)
  }
}
