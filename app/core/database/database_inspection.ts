import { readdir } from 'node:fs/promises'
import { basename, extname, join, relative, resolve } from 'node:path'
import app from '@adonisjs/core/services/app'
import sqlite3 from 'sqlite3'
import { isMigrationFile, LEGACY_MIGRATIONS, migrationFolders } from '#core/database/migration_folders'

export type Inspection =
  | { usable: true; migrations: string[] }
  | { usable: false; problem: 'unreadable'; reason: string }
  | { usable: false; problem: 'too_recent'; reason: string; unknownMigrations: string[] }

/**
 * The migrations this version of the gateway knows (file names without extension), from every
 * migrations folder Lucid runs (app/core/database/migration_folders.ts): database/migrations,
 * core's and each module's. `legacyFolder` is the application's database/migrations folder
 * (`app.migrationsPath()`, the build's in a build); the other folders are found from the
 * application root it sits in.
 */
export async function knownMigrations(legacyFolder: string = app.migrationsPath()): Promise<Set<string>> {
  const root = resolve(legacyFolder, relative(LEGACY_MIGRATIONS, '.'))
  const known = new Set<string>()
  for (const folder of migrationFolders(root)) {
    let files: string[]
    try {
      files = await readdir(join(root, folder), { recursive: true })
    } catch {
      continue
    }
    for (const file of files.filter(isMigrationFile)) known.add(basename(file, extname(file)))
  }
  return known
}

/**
 * Whether a file is this product's database at a schema this version knows: it opens as
 * SQLite, `integrity_check` says ok, and its applied migrations (Lucid's `adonis_schema`) are all
 * known here. A migration unknown here means a newer gateway made it.
 * Opened read-only: the file is never changed.
 */
export async function inspectDatabaseFile(file: string, known: Set<string>): Promise<Inspection> {
  let connection: sqlite3.Database
  try {
    connection = await new Promise<sqlite3.Database>((resolve, reject) => {
      const opened = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (error) => (error ? reject(error) : resolve(opened)))
    })
  } catch {
    return { usable: false, problem: 'unreadable', reason: 'not a SQLite database' }
  }
  const all = (sql: string) => new Promise<any[]>((resolve, reject) => connection.all(sql, (error, rows) => (error ? reject(error) : resolve(rows))))
  try {
    let integrity: any[]
    try {
      integrity = await all('PRAGMA integrity_check')
    } catch {
      return { usable: false, problem: 'unreadable', reason: 'not a SQLite database' }
    }
    if (integrity.length !== 1 || integrity[0].integrity_check !== 'ok') {
      return { usable: false, problem: 'unreadable', reason: 'integrity check failed' }
    }
    let applied: string[]
    try {
      applied = (await all('SELECT name FROM adonis_schema ORDER BY id')).map((row) => basename(String(row.name)))
    } catch {
      return { usable: false, problem: 'unreadable', reason: 'not a database of this product' }
    }
    if (!applied.includes('0001_core_create_platform_tables')) {
      return { usable: false, problem: 'unreadable', reason: 'not a database of this product' }
    }
    const unknown = applied.filter((name) => !known.has(name))
    if (unknown.length) {
      return { usable: false, problem: 'too_recent', reason: 'made by a newer gateway version', unknownMigrations: unknown }
    }
    return { usable: true, migrations: applied }
  } finally {
    await new Promise((resolve) => connection.close(resolve))
  }
}
