import { existsSync, readdirSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'

/**
 * The folders Lucid reads migrations from, relative to the application root, in the order it
 * runs them (it concatenates the folders in this order, each sorted naturally):
 *
 * 1. `database/migrations`: the migrations of the first versions. It is closed (no new file goes
 *    there) and its files never move: Lucid records each migration's name with its folder
 *    (`database/migrations/0001_core_create_platform_tables`) in every gateway's `adonis_schema`,
 *    and a moved file would be a new migration and run again.
 * 2. `app/<folder>/migrations` (core's own: `app/core/migrations`), folders in name order.
 * 3. `app/modules/<module>/migrations`, modules in name order.
 *
 * Only existing folders are listed. A migration may therefore rely only on the tables of
 * `database/migrations` and of its own folder (docs/adding-a-module.md, Migrations).
 * The same list in the sources and in the compiled build (`build/` keeps the folders).
 */
export const LEGACY_MIGRATIONS = 'database/migrations'

export function migrationFolders(appRoot: URL | string): string[] {
  const root = typeof appRoot === 'string' ? appRoot : fileURLToPath(appRoot)
  const folders = [LEGACY_MIGRATIONS]
  const subfolders = (relative: string) => {
    try {
      return readdirSync(join(root, relative), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort()
    } catch {
      return []
    }
  }
  const withMigrations = (relative: string) => {
    const folder = join(root, relative, 'migrations')
    return existsSync(folder) && statSync(folder).isDirectory()
  }
  for (const name of subfolders('app')) {
    if (name !== 'modules' && withMigrations(`app/${name}`)) folders.push(`app/${name}/migrations`)
  }
  for (const name of subfolders('app/modules')) {
    if (withMigrations(`app/modules/${name}`)) folders.push(`app/modules/${name}/migrations`)
  }
  return folders
}

/** Whether a file in a migrations folder is a migration (what Lucid imports: scripts, not typings). */
export function isMigrationFile(name: string): boolean {
  return /\.(ts|js|mjs|cjs)$/.test(name) && !name.endsWith('.d.ts')
}
