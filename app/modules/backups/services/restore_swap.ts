import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileStamp } from '#core/time/file_stamp'
import { restoreFiles, sha256Of, type PreparedRestore } from '#modules/backups/services/restore_files'

export type RestoreOutcome =
  | { applied: true; name: string; previous: string | null; at: string }
  | { applied: false; name: string | null; reason: string; at: string }

const SIDE_FILES = ['-wal', '-shm', '-journal']

/**
 * The swap at start (docs/operations.md, Restoring a backup), run before anything opens the
 * database: if the prepared copy is exactly the one checked, the current database (with its -wal
 * and -shm, moved together so nothing is lost) is kept as gateway.db.pre-restore-<timestamp> and
 * the copy takes its place with no stale -wal/-shm beside it; migrations then upgrade an older
 * schema as the gateway boots. If anything fails the current database is put back and the gateway
 * starts on it: a failed restore never stops the gateway. The outcome is written for the logs.
 */
export async function applyPendingRestore(dataDir: string, now = new Date()): Promise<RestoreOutcome | null> {
  const files = restoreFiles(join(dataDir, 'restore'))
  if (!existsSync(files.manifest)) return null
  const at = now.toISOString()
  let manifest: PreparedRestore | null = null
  const fail = (reason: string): RestoreOutcome => {
    discard()
    return record({ applied: false, name: manifest?.name ?? null, reason, at })
  }
  const discard = () => {
    rmSync(files.manifest, { force: true })
    rmSync(files.copy, { force: true })
  }
  const record = (outcome: RestoreOutcome) => {
    try {
      writeFileSync(files.outcome, JSON.stringify(outcome), { mode: 0o600 })
    } catch {}
    return outcome
  }

  try {
    manifest = JSON.parse(readFileSync(files.manifest, 'utf8')) as PreparedRestore
  } catch {
    return fail('the restore record is unreadable')
  }
  if (!existsSync(files.copy)) return fail('the prepared copy is missing')
  if ((await sha256Of(files.copy)) !== manifest.sha256) return fail('the prepared copy changed after it was checked')

  const database = join(dataDir, 'gateway.db')
  const previous = `${database}.pre-restore-${fileStamp(now)}`
  const moved: Array<[from: string, to: string]> = []
  try {
    if (existsSync(database)) {
      for (const suffix of ['', ...SIDE_FILES]) {
        if (!existsSync(database + suffix)) continue
        renameSync(database + suffix, previous + suffix)
        moved.push([database + suffix, previous + suffix])
      }
    }
    renameSync(files.copy, database)
    rmSync(files.manifest, { force: true })
    return record({ applied: true, name: manifest.name, previous: moved.length ? previous : null, at })
  } catch (error) {
    // Put everything back as it was: the gateway starts on its existing database.
    for (const [from, to] of moved.reverse()) {
      try {
        if (existsSync(from)) rmSync(from, { force: true })
        renameSync(to, from)
      } catch {}
    }
    return fail(`the swap could not be done (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
  }
}
