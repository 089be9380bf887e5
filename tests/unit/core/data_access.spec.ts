import { test } from '@japa/runner'
import { fileURLToPath } from 'node:url'
import { reachesTheDatabase, sqlOutsideStores } from '#tests/unit/core/data_access_rule'

const root = fileURLToPath(new URL('../../../', import.meta.url))

/**
 * The modules whose SQL is all in their stores. A module joins this list the commit its last
 * query moves into `stores/`; every module is meant to be here.
 */
const MODULES_WITH_STORES = [
  'devices',
  'conversations',
  'statistics',
  'automation',
  'auth',
  'contacts',
  'contact_imports',
  'smsgate',
  'agent',
  'links',
  'exports',
  'license',
  'backups',
  'webhooks',
  'campaigns',
  'messages',
  'message_bulk',
  'sending',
]

/**
 * One data-access style per module (docs/modules.md, Data access): a listed module's SQL,
 * whatever its form, is in its stores; services, jobs, channels, controllers and its public
 * functions call store methods named for what they do.
 */
test.group('Data access: the SQL lives in the stores', () => {
  test('no file of {$self} outside stores/, models/ and migrations/ reaches the database itself')
    .with(MODULES_WITH_STORES)
    .run(async ({ assert }, module) => {
      assert.deepEqual(await sqlOutsideStores(root, module), [])
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
      "return keysetPage(query.preload('sims'), request)",
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
      'await license.load(environmentKey)',
    ]) {
      assert.isFalse(caught(line), line)
    }
  })
})
