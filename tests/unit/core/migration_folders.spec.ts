import { test } from '@japa/runner'
import { mkdtemp, mkdir, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { MigrationRunner } from '@adonisjs/lucid/migration'
import { isMigrationFile, LEGACY_MIGRATIONS, migrationFolders } from '#core/database/migration_folders'
import { knownMigrations } from '#core/database/database_inspection'

const root = fileURLToPath(app.appRoot)

/** Every migration of the sources: its folder and its name without extension. */
async function everyMigration(): Promise<Array<{ folder: string; name: string }>> {
  const found: Array<{ folder: string; name: string }> = []
  for (const folder of migrationFolders(root)) {
    const files = await readdir(join(root, folder), { recursive: true })
    for (const file of files.filter(isMigrationFile)) found.push({ folder, name: basename(file, extname(file)) })
  }
  return found
}

/** Who may own a migration of a folder: the module of app/modules/<m>/migrations, core for app/core/migrations. */
async function ownersOf(folder: string): Promise<string[]> {
  if (folder === LEGACY_MIGRATIONS) {
    const modules = (await readdir(join(root, 'app/modules'), { withFileTypes: true })).filter((entry) => entry.isDirectory())
    return ['core', ...modules.map((entry) => entry.name)]
  }
  return [folder.split('/').at(-2)!]
}

test.group('Migration folders', () => {
  test('Lucid runs database/migrations first, then every app/*/migrations and app/modules/*/migrations folder in name order', async ({ assert }) => {
    const config = db.getRawConnection('sqlite')!.config
    assert.deepEqual(config.migrations?.paths, migrationFolders(root))
    assert.equal(config.migrations?.paths?.[0], 'database/migrations')

    // The recorded names of the first migrations keep their folder: a gateway that applied them
    // finds them applied and never runs them again.
    const list = await new MigrationRunner(db, app, { direction: 'up', dryRun: true }).getList()
    assert.deepEqual(list.filter((file) => file.status !== 'migrated'), [], 'the gateway applied them all at start')
    const names = list.map((file) => file.name)
    assert.equal(names[0], 'database/migrations/0001_core_create_platform_tables')
    assert.deepEqual(
      names.map((name) => name.split('/').slice(0, -1).join('/')).filter((folder, index, all) => all.indexOf(folder) === index),
      migrationFolders(root)
    )
  })

  test('the folders are found on disk, in a stable order, and knownMigrations reads them all', async ({ assert }) => {
    const scratch = await mkdtemp(join(tmpdir(), 'migration-folders-'))
    try {
      const file = (path: string) => mkdir(join(scratch, path, '..'), { recursive: true }).then(() => writeFile(join(scratch, path), 'export default class {}\n'))
      await file('database/migrations/0001_core_create_platform_tables.ts')
      await file('app/modules/zebras/migrations/0031_zebras_create_zebras.ts')
      await file('app/modules/apples/migrations/0030_apples_create_apples.js')
      await file('app/modules/apples/migrations/0030_apples_create_apples.d.ts')
      await file('app/core/migrations/0032_core_something.ts')
      await mkdir(join(scratch, 'app/modules/pears/services'), { recursive: true })
      assert.deepEqual(migrationFolders(scratch), [
        'database/migrations',
        'app/core/migrations',
        'app/modules/apples/migrations',
        'app/modules/zebras/migrations',
      ])
      assert.deepEqual(migrationFolders(new URL(`file://${scratch}/`)), migrationFolders(scratch))
      assert.sameMembers(
        [...(await knownMigrations(join(scratch, 'database/migrations')))],
        ['0001_core_create_platform_tables', '0032_core_something', '0030_apples_create_apples', '0031_zebras_create_zebras']
      )
    } finally {
      await rm(scratch, { recursive: true, force: true })
    }
  })

  test('knownMigrations of the running gateway names every migration of every folder', async ({ assert }) => {
    assert.sameMembers([...(await knownMigrations())], (await everyMigration()).map(({ name }) => name))
  })

  test('migration names are unique across every folder, numbered 00NN_<owner>_<what> with the folder’s owner', async ({ assert }) => {
    const migrations = await everyMigration()
    const seen = new Map<string, string>()
    for (const { folder, name } of migrations) {
      const match = /^(\d{4})_([a-z][a-z0-9_]*)$/.exec(name)
      assert.isNotNull(match, `${folder}/${name}: named 00NN_<owner>_<what>`)
      const owners = await ownersOf(folder)
      assert.isTrue(
        owners.some((owner) => match![2].startsWith(`${owner}_`) && match![2].length > owner.length + 1),
        `${folder}/${name}: the owner after the number is one of ${owners.join(', ')}`
      )
      assert.isFalse(seen.has(match![1]), `${folder}/${name}: number ${match![1]} is also ${seen.get(match![1])}`)
      seen.set(match![1], `${folder}/${name}`)
    }
    assert.lengthOf(new Set(migrations.map(({ name }) => name)), migrations.length)
  })

  test('database/migrations is closed: a new migration goes to its owner’s folder', async ({ assert }) => {
    const legacy = (await everyMigration()).filter(({ folder }) => folder === LEGACY_MIGRATIONS).map(({ name }) => name)
    assert.isAtMost(Math.max(...legacy.map((name) => Number(name.slice(0, 4)))), 23, 'app/modules/<module>/migrations or app/core/migrations (docs/adding-a-module.md, Migrations)')
  })
})
