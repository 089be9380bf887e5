import { test } from '@japa/runner'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../../', import.meta.url))

/**
 * The modules whose SQL is all in their stores. A module joins this list the commit its last
 * query moves into `stores/`; every module is meant to be here.
 */
const MODULES_WITH_STORES = ['devices', 'conversations', 'statistics', 'automation', 'auth', 'contacts', 'contact_imports']

/** The folders whose files may hold the module's SQL: its stores, its models and its migrations. */
const MAY_HOLD_SQL = ['stores/', 'models/', 'migrations/']

/**
 * What reaches the database by itself: the database service, the read connection, SQL text, a
 * query builder, or a Lucid model's own queries (a model read, created, saved, deleted or
 * loaded). A model imported for its type only is a row's shape, not a query.
 */
function reachesTheDatabase(module: string, models: string[]): Array<[string, RegExp]> {
  const model = models.length ? models.join('|') : '(?!)'
  return [
    ['the database service', /@adonisjs\/lucid\/services\/db/],
    ['the read connection', /\breadConnection\b/],
    ['SQL text', /\.rawQuery\(/],
    ['a query builder', /\.query\(\)|\bdb\.from\b|\.from\(\s*['"`]|\.table\(|\.insertQuery\(|\.multiInsert\(|\.knexQuery\b/],
    ['a model query', new RegExp(`\\b(${model})\\.(find|findOrFail|findBy|findMany|create|createMany|all|first|updateOrCreate|firstOrCreate)\\(`)],
    ['a model write or load', /\.(save|delete|refresh)\(\)|\.useTransaction\(|\.(load|preload)\(/],
    ['a model imported for more than its type', new RegExp(`^import (?!type )[^;]*from '#modules/${module}/models/`)],
  ]
}

/** The module's model classes, named after their files (`device_sim.ts` holds `DeviceSim`). */
async function modelsOf(folder: string): Promise<string[]> {
  const files = await readdir(join(folder, 'models')).catch(() => [] as string[])
  return files
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.slice(0, -3).split('_').map((word) => word[0].toUpperCase() + word.slice(1)).join(''))
}

async function sources(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true })
  return entries.filter((entry) => entry.endsWith('.ts')).map((entry) => join(folder, entry))
}

/**
 * One data-access style per module (docs/modules.md, Data access): a listed module's SQL,
 * whatever its form, is in its stores; services, jobs, channels, controllers and its public
 * functions call store methods named for what they do.
 */
test.group('Data access: the SQL lives in the stores', () => {
  test('no file of {$self} outside stores/, models/ and migrations/ reaches the database itself')
    .with(MODULES_WITH_STORES)
    .run(async ({ assert }, module) => {
      const folder = join(root, 'app/modules', module)
      const patterns = reachesTheDatabase(module, await modelsOf(folder))
      const found: string[] = []
      for (const file of await sources(folder)) {
        const path = relative(folder, file)
        if (MAY_HOLD_SQL.some((folder) => path.startsWith(folder))) continue
        const lines = (await readFile(file, 'utf8')).split('\n')
        lines.forEach((line, index) => {
          for (const [what, pattern] of patterns) {
            if (pattern.test(line)) found.push(`${path}:${index + 1} (${what}): ${line.trim()}`)
          }
        })
      }
      assert.deepEqual(found, [])
    })

  test('the patterns catch each way of reaching the database', ({ assert }) => {
    const patterns = reachesTheDatabase('devices', ['Device', 'DeviceSim'])
    const caught = (line: string) => patterns.some(([, pattern]) => pattern.test(line))
    for (const line of [
      "import db from '@adonisjs/lucid/services/db'",
      'const rows = await readConnection().rawQuery(sql, bindings)',
      "await trx.rawQuery('UPDATE pairing_codes SET used_at = ?', [at])",
      'const [row] = await Device.query().where(\'enabled\', true)',
      "await db.from('devices').where('id', id).update({ status: 'offline' })",
      "await trx.from('device_sims').where('device_id', id).delete()",
      "await trx.table('device_sims').multiInsert(rows)",
      'await trx.insertQuery().table(TABLE).insert(row)',
      'const device = await Device.find(id)',
      'const device = await Device.create(fields, { client: trx })',
      'await device.useTransaction(trx).save()',
      'await device.delete()',
      "await device.load('sims')",
      "import Device from '#modules/devices/models/device'",
    ]) {
      assert.isTrue(caught(line), line)
    }
    for (const line of [
      "import type Device from '#modules/devices/models/device'",
      'this.#storing.delete(acked)',
      'const to = Array.from({ length: count }, (_, index) => index)',
      'const channel = this.#channels.find((known) => known.kind === kind)',
      'await this.devices.markOffline(id)',
    ]) {
      assert.isFalse(caught(line), line)
    }
  })
})
