import { readdir } from 'node:fs/promises'
import { basename, extname } from 'node:path'
import sqlite3 from 'sqlite3'

export type Inspection =
  | { usable: true; migrations: string[] }
  | { usable: false; problem: 'unreadable'; reason: string }
  | { usable: false; problem: 'too_recent'; reason: string; unknownMigrations: string[] }

/** The migrations this version of the gateway knows (file names without extension). */
export async function knownMigrations(migrationsDir: string): Promise<Set<string>> {
  const files = await readdir(migrationsDir)
  return new Set(files.filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts')).map((file) => basename(file, extname(file))))
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
