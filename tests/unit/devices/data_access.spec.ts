import { test } from '@japa/runner'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const devices = join(root, 'app/modules/devices')

/** The folders whose files may hold the module's SQL: its stores, its models and its migrations. */
const MAY_HOLD_SQL = ['stores/', 'models/', 'migrations/']

/**
 * What reaches the database by itself: the database service, the read connection, SQL text, a
 * query builder, or a Lucid model's own queries (a model read, created, saved, deleted or
 * loaded). A model imported for its type only is a row's shape, not a query.
 */
const REACHES_THE_DATABASE: Array<[string, RegExp]> = [
  ['the database service', /@adonisjs\/lucid\/services\/db/],
  ['the read connection', /\breadConnection\b/],
  ['SQL text', /\.rawQuery\(/],
  ['a query builder', /\.query\(\)|\bdb\.from\b|\.from\(\s*['"`]|\.table\(|\.insertQuery\(|\.multiInsert\(|\.knexQuery\b/],
  ['a model query', /\b(Device|DeviceSim)\.(find|findOrFail|findBy|findMany|create|createMany|all|first|updateOrCreate|firstOrCreate)\(/],
  ['a model write or load', /\.(save|delete|refresh)\(\)|\.useTransaction\(|\.(load|preload)\(/],
  ['a model imported for more than its type', /^import (?!type )[^;]*from '#modules\/devices\/models\//],
]

async function sources(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true })
  return entries.filter((entry) => entry.endsWith('.ts')).map((entry) => join(folder, entry))
}

/**
 * One data-access style per module (docs/modules.md, Data access): the devices module's SQL,
 * whatever its form, is in its stores; services, jobs, channels, controllers and its public
 * functions call store methods named for what they do.
 */
test.group('Devices: the SQL lives in the stores', () => {
  test('no file of the devices module outside stores/, models/ and migrations/ reaches the database itself', async ({ assert }) => {
    const found: string[] = []
    for (const file of await sources(devices)) {
      const path = relative(devices, file)
      if (MAY_HOLD_SQL.some((folder) => path.startsWith(folder))) continue
      const lines = (await readFile(file, 'utf8')).split('\n')
      lines.forEach((line, index) => {
        for (const [what, pattern] of REACHES_THE_DATABASE) {
          if (pattern.test(line)) found.push(`${path}:${index + 1} (${what}): ${line.trim()}`)
        }
      })
    }
    assert.deepEqual(found, [])
  })

  test('the patterns catch each way of reaching the database', ({ assert }) => {
    const caught = (line: string) => REACHES_THE_DATABASE.some(([, pattern]) => pattern.test(line))
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
