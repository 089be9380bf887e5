import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { SettingsStore } from '#core/settings/settings_store'
import { settingsCatalogue } from '#core/settings/settings_catalogue'
import { useTestKeys, testKeys } from '#tests/helpers/callers'
import { clearDevices, pairPhone } from '#tests/helpers/devices'

/**
 * PATCH /settings takes the types its OpenAPI schema states: an integer is a JSON number, never
 * a numeric string or a boolean (`true` would become 1, `""` or `false` SIM 0), and `null` only
 * where the schema says nullable. Such a value of the wrong type is 400 in every section, the backup
 * block included (it answers 422 only for a value of the right type out of range).
 */
test.group('Settings: types as the document says', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await db.from('settings').delete()
    ;(await app.container.make(SettingsStore)).invalidate()
  })

  const patch = (client: any, body: object) => client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json(body)
  const defaults = () => Object.fromEntries(settingsCatalogue.sectionNames.map((name) => [name, settingsCatalogue.defaults(name)]))

  async function assertRefused(client: any, assert: any, body: object, field: string) {
    const response = await patch(client, body)
    assert.equal(response.status(), 400, `${JSON.stringify(body)} answered ${response.status()}`)
    assert.equal(response.body().error.code, 'VALIDATION_ERROR')
    assert.include(
      response.body().error.details.map((detail: { field: string }) => detail.field),
      field,
      JSON.stringify(response.body().error.details)
    )
  }

  test('an integer setting refuses numeric strings and booleans', async ({ client, assert }) => {
    const cases: Array<[object, string]> = [
      [{ sending: { maxAttempts: '3' } }, 'sending.maxAttempts'],
      [{ sending: { maxAttempts: true } }, 'sending.maxAttempts'],
      [{ sending: { simMinIntervalSeconds: false } }, 'sending.simMinIntervalSeconds'],
      [{ sending: { simMinIntervalSeconds: '' } }, 'sending.simMinIntervalSeconds'],
      [{ sending: { simPerMinuteLimit: '10' } }, 'sending.simPerMinuteLimit'],
      [{ notifications: { smtpPort: '25' } }, 'notifications.smtpPort'],
      [{ notifications: { smtpPort: true } }, 'notifications.smtpPort'],
      [{ backup: { intervalHours: true } }, 'backup.intervalHours'],
      [{ backup: { retention: '7' } }, 'backup.retention'],
    ]
    for (const [body, field] of cases) await assertRefused(client, assert, body, field)
    const after = await client.get('/api/v1/settings').header('x-api-key', testKeys.admin)
    assert.deepEqual(after.body(), defaults())
  })

  test('a SIM slot in the routing rules is the number 0 or 1, not "", " ", false or true', async ({ client, assert }) => {
    await clearDevices()
    const deviceId = String((await pairPhone(client, 'Routing phone', [{ slot: 0 }, { slot: 1 }])).device.id)
    for (const simSlot of ['', ' ', false, true, '1']) {
      await assertRefused(client, assert, { sending: { priority: [{ deviceId, simSlot }] } }, 'sending.priority.0.simSlot')
      await assertRefused(client, assert, { sending: { prefixRules: [{ prefix: '+33', deviceId, simSlot }] } }, 'sending.prefixRules.0.simSlot')
    }
    const after = await client.get('/api/v1/settings').header('x-api-key', testKeys.admin)
    assert.deepEqual(after.body().sending, settingsCatalogue.defaults('sending'))
    // What the document allows still passes: a number, and null for "any SIM" in a prefix rule.
    ;(await patch(client, { sending: { priority: [{ deviceId, simSlot: 1 }], prefixRules: [{ prefix: '+33', deviceId, simSlot: null }] } })).assertStatus(200)
  })

  test('null only where the document says nullable', async ({ client, assert }) => {
    const cases: Array<[object, string]> = [
      [{ general: { gatewayName: null } }, 'general.gatewayName'],
      [{ general: { uppercase: null } }, 'general.uppercase'],
      [{ sending: { maxAttempts: null } }, 'sending.maxAttempts'],
      [{ sending: { routingMode: null } }, 'sending.routingMode'],
      [{ notifications: { adminEmails: null } }, 'notifications.adminEmails'],
      [{ backup: { enabled: null } }, 'backup.enabled'],
      [{ backup: { retention: null } }, 'backup.retention'],
      [{ backup: null }, 'backup'],
      [{ general: null }, 'general'],
    ]
    for (const [body, field] of cases) await assertRefused(client, assert, body, field)
    const after = await client.get('/api/v1/settings').header('x-api-key', testKeys.admin)
    assert.deepEqual(after.body(), defaults())
    ;(await patch(client, { sending: { simPerMinuteLimit: null }, reception: { localPrefix: null }, notifications: { smtpHost: null } })).assertStatus(200)
  })
})
