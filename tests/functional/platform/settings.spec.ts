import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import { SettingsStore } from '#core/settings/settings_store'
import { readdir, readFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { settingsCatalogue, SECRET_MASK } from '#core/settings/settings_catalogue'
import { useTestKeys, testKeys } from '#tests/helpers/callers'

type Defaults = Record<string, Record<string, unknown>>

/**
 * Every owner's declaration of its documented defaults: tests/functional/platform/settings_defaults/<owner>.ts
 * and tests/functional/<module>/settings_defaults.ts.
 */
async function documentedDefaults(): Promise<Array<{ owner: string; defaults: Defaults }>> {
  const functional = app.makePath('tests/functional')
  const files: Array<{ owner: string; file: string }> = []
  for (const name of await readdir(join(functional, 'platform/settings_defaults'))) {
    if (name.endsWith('.ts') && !name.endsWith('.d.ts')) files.push({ owner: basename(name, '.ts'), file: join(functional, 'platform/settings_defaults', name) })
  }
  for (const entry of await readdir(functional, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue
    const names = await readdir(join(functional, entry.name))
    if (names.includes('settings_defaults.ts')) files.push({ owner: entry.name, file: join(functional, entry.name, 'settings_defaults.ts') })
  }
  return Promise.all(files.map(async ({ owner, file }) => ({ owner, defaults: (await import(pathToFileURL(file).href)).default as Defaults })))
}

/** The text of every page of documentation: docs/**\/*.md, README.md and the .md files of app/. */
async function documentation(): Promise<string> {
  const pages = [app.makePath('README.md')]
  for (const folder of ['docs', 'app']) {
    for (const file of await readdir(app.makePath(folder), { recursive: true })) {
      if (file.endsWith('.md')) pages.push(app.makePath(folder, file))
    }
  }
  return (await Promise.all(pages.map((page) => readFile(page, 'utf8')))).join('\n')
}

test.group('Settings', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await db.from('settings').delete()
    ;(await app.container.make(SettingsStore)).invalidate()
  })

  test('a section read from the store cannot be changed by its reader; only PATCH changes it', async ({ client, assert }) => {
    const store = await app.container.make(SettingsStore)
    const sending = (await store.get('sending')) as any
    assert.throws(() => {
      sending.maxAttempts = 99
    })
    assert.throws(() => sending.priority.push({ deviceId: '1', simSlot: 0 }))
    assert.notEqual((await store.get('sending')).maxAttempts, 99)
    const patched = await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ sending: { maxAttempts: 5 } })
    patched.assertStatus(200)
    assert.equal((await store.get('sending')).maxAttempts, 5)
  })

  test('GET /settings answers every section and field modules register, each with its default', async ({ client, assert }) => {
    const response = await client.get('/api/v1/settings').header('x-api-key', testKeys.admin)
    response.assertStatus(200)
    assert.sameMembers(Object.keys(response.body()), settingsCatalogue.sectionNames)
    for (const section of settingsCatalogue.sectionNames) {
      const secret = settingsCatalogue.secretFields(section)
      const expected = Object.fromEntries(
        Object.entries(settingsCatalogue.defaults(section) as Record<string, unknown>).map(([field, value]) => [
          field,
          secret.includes(field) && value !== null ? SECRET_MASK : value,
        ])
      )
      assert.deepEqual(response.body()[section], expected, section)
    }
  })

  // The defaults are a contract with operators: each owner declares the ones its docs state
  // (tests/functional/platform/settings_defaults/<owner>.ts for core and the first modules,
  // tests/functional/<module>/settings_defaults.ts for a module of its own), never one list here.
  test('every settings field is declared with its documented default by exactly one owner, and GET /settings answers that value', async ({ client, assert }) => {
    const declarations = await documentedDefaults()
    const response = await client.get('/api/v1/settings').header('x-api-key', testKeys.admin)
    const declaredBy = new Map<string, string>()
    for (const { owner, defaults } of declarations) {
      for (const [section, fields] of Object.entries(defaults)) {
        for (const [field, value] of Object.entries(fields)) {
          const name = `${section}.${field}`
          assert.isFalse(declaredBy.has(name), `${name} is declared by ${owner} and ${declaredBy.get(name)}`)
          declaredBy.set(name, owner)
          assert.isTrue(settingsCatalogue.has(section) && settingsCatalogue.fieldNames(section).includes(field), `${owner} declares ${name}, which no module registers`)
          assert.deepEqual(response.body()[section][field], value, `${name} (declared by ${owner})`)
        }
      }
    }
    const registered = settingsCatalogue.sectionNames.flatMap((section) => settingsCatalogue.fieldNames(section).map((field) => `${section}.${field}`))
    assert.deepEqual(
      registered.filter((name) => !declaredBy.has(name)),
      [],
      'fields without a documented default: declare them in their module\'s tests/functional/<module>/settings_defaults.ts'
    )
  })

  test('every settings field a module registers is named in the docs', async ({ assert }) => {
    const docs = await documentation()
    const missing = settingsCatalogue.sectionNames.flatMap((section) =>
      settingsCatalogue.fieldNames(section).filter((field) => !docs.includes(`\`${field}\``) && !docs.includes(`\`${section}.${field}\``)).map((field) => `${section}.${field}`)
    )
    assert.deepEqual(missing, [], 'name each field in backquotes in docs/, README.md or the module\'s own .md (docs/adding-a-module.md)')
  })

  test('numbers and booleans are taken as JSON numbers and booleans only: no coercion', async ({ client, assert }) => {
    for (const [section, field, value, status] of [
      ['sending', 'maxAttempts', true, 400],
      ['sending', 'maxAttempts', '3', 400],
      ['sending', 'simMinIntervalSeconds', false, 400],
      ['sending', 'simPerMinuteLimit', '60', 400],
      ['general', 'uppercase', 1, 400],
      ['notifications', 'smtpPort', '25', 400],
      // A wrong type is a malformed request in every section, the backup block included.
      ['backup', 'retention', '7', 400],
      ['backup', 'intervalHours', true, 400],
      ['backup', 'enabled', 'yes', 400],
    ] as const) {
      const response = await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ [section]: { [field]: value } })
      assert.equal(response.status(), status, `${section}.${field} = ${JSON.stringify(value)}`)
      assert.equal(response.body().error.code, 'VALIDATION_ERROR')
      assert.equal(response.body().error.details[0].field, `${section}.${field}`)
    }
    const priority = await client
      .patch('/api/v1/settings')
      .header('x-api-key', testKeys.admin)
      .json({ sending: { priority: [{ deviceId: '1', simSlot: '0' }] } })
    priority.assertStatus(400)
    const after = await client.get('/api/v1/settings').header('x-api-key', testKeys.admin)
    assert.deepEqual(after.body().sending, settingsCatalogue.defaults('sending'))
    assert.deepEqual(after.body().backup, settingsCatalogue.defaults('backup'))
  })

  test('PATCH changes only the fields sent, answers the settings in force and keeps them', async ({ client, assert }) => {
    const response = await client
      .patch('/api/v1/settings')
      .header('x-api-key', testKeys.admin)
      .json({ backup: { retention: 30 }, reception: { localPrefix: '+33' } })
    response.assertStatus(200)
    assert.deepEqual(response.body().backup, { enabled: true, frequency: 'daily', dailyAt: '03:00', intervalHours: 24, retention: 30 })
    assert.equal(response.body().reception.localPrefix, '+33')
    assert.deepEqual(response.body().general, settingsCatalogue.defaults('general'))

    const second = await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ backup: { frequency: 'interval', intervalHours: 6 } })
    assert.deepInclude(second.body().backup, { retention: 30, frequency: 'interval', intervalHours: 6 })

    // From the database, not from memory.
    const store = await app.container.make(SettingsStore)
    store.invalidate()
    assert.deepInclude((await store.all()).backup, { retention: 30, frequency: 'interval', intervalHours: 6 })
  })

  test('a backup value of the right type out of range, not in the enum or not HH:MM is 422 VALIDATION_ERROR naming the field, and nothing changes', async ({ client, assert }) => {
    for (const [field, value] of [
      ['retention', 0],
      ['retention', 366],
      ['intervalHours', 0],
      ['intervalHours', 169],
      ['dailyAt', '24:00'],
      ['dailyAt', '3:00'],
      ['frequency', 'weekly'],
    ] as const) {
      const response = await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ backup: { [field]: value } })
      response.assertStatus(422)
      assert.equal(response.body().error.code, 'VALIDATION_ERROR')
      assert.equal(response.body().error.details[0].field, `backup.${field}`)
    }
    const after = await client.get('/api/v1/settings').header('x-api-key', testKeys.admin)
    assert.deepEqual(after.body().backup, settingsCatalogue.defaults('backup'))
  })

  test('a backup value of the wrong type, null or not an object is 400 VALIDATION_ERROR, like every section', async ({ client, assert }) => {
    const cases: Array<[unknown, string, string]> = [
      [null, 'backup', 'notNull'],
      ['x', 'backup', 'object'],
      [7, 'backup', 'object'],
      [[], 'backup', 'object'],
      [{ retention: null }, 'backup.retention', 'notNull'],
      [{ intervalHours: null }, 'backup.intervalHours', 'notNull'],
      [{ dailyAt: null }, 'backup.dailyAt', 'notNull'],
      [{ frequency: null }, 'backup.frequency', 'notNull'],
      [{ enabled: null }, 'backup.enabled', 'notNull'],
      [{ retention: '7' }, 'backup.retention', 'integer'],
      // The document says integer: a number with decimals is of another type.
      [{ retention: 7.5 }, 'backup.retention', 'integer'],
      [{ retention: true }, 'backup.retention', 'integer'],
      [{ retention: [7] }, 'backup.retention', 'integer'],
      [{ dailyAt: 300 }, 'backup.dailyAt', 'string'],
      [{ frequency: 1 }, 'backup.frequency', 'string'],
      [{ enabled: 1 }, 'backup.enabled', 'boolean'],
      [{ enabled: 'true' }, 'backup.enabled', 'boolean'],
    ]
    for (const [block, field, rule] of cases) {
      const response = await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ backup: block } as any)
      const label = JSON.stringify({ backup: block })
      assert.equal(response.status(), 400, label)
      assert.equal(response.body().error.code, 'VALIDATION_ERROR', label)
      assert.equal(response.body().error.details[0].field, field, label)
      assert.equal(response.body().error.details[0].rule, rule, label)
    }
    // A wrong type beside an out-of-range value: the request is malformed, 400 with both named.
    const mixed = await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ backup: { retention: 0 }, sending: { maxAttempts: '3' } })
    mixed.assertStatus(400)
    assert.sameMembers(
      mixed.body().error.details.map((detail: { field: string }) => detail.field),
      ['backup.retention', 'sending.maxAttempts']
    )
    const after = await client.get('/api/v1/settings').header('x-api-key', testKeys.admin)
    assert.deepEqual(after.body().backup, settingsCatalogue.defaults('backup'))
  })

  test('the store holds the same rule without the HTTP body checks: a wrong type 400, a backup value out of range 422', async ({ assert }) => {
    const store = await app.container.make(SettingsStore)
    const refusal = async (change: unknown) => {
      try {
        await store.update(change)
      } catch (error: any) {
        return { status: error.status, field: error.details?.[0]?.field }
      }
      assert.fail(`${JSON.stringify(change)} was accepted`)
    }
    assert.deepEqual(await refusal({ backup: null }), { status: 400, field: 'backup' })
    assert.deepEqual(await refusal({ backup: 'x' }), { status: 400, field: 'backup' })
    assert.deepEqual(await refusal({ backup: { retention: null } }), { status: 400, field: 'backup.retention' })
    assert.deepEqual(await refusal({ backup: { retention: '7' } }), { status: 400, field: 'backup.retention' })
    assert.deepEqual(await refusal({ backup: { retension: 3 } }), { status: 400, field: 'backup.retension' })
    assert.deepEqual(await refusal({ backup: { retention: 0 } }), { status: 422, field: 'backup.retention' })
    assert.deepEqual(await refusal({ backup: { frequency: 'weekly' } }), { status: 422, field: 'backup.frequency' })
    assert.deepEqual(await refusal({ general: null }), { status: 400, field: 'general' })
    assert.deepEqual(await refusal({ notifications: { smtpPort: 70000 } }), { status: 400, field: 'notifications.smtpPort' })
  })

  test('the edges of the backup ranges are accepted', async ({ client }) => {
    const low = await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ backup: { retention: 1, intervalHours: 1, dailyAt: '00:00' } })
    low.assertStatus(200)
    const high = await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ backup: { retention: 365, intervalHours: 168, dailyAt: '23:59' } })
    high.assertStatus(200)
  })

  test('other sections answer 400 for a value out of range too, and a mixed refusal changes nothing at all', async ({ client, assert }) => {
    const badZone = await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ sending: { timezone: 'Mars/Olympus' } })
    badZone.assertStatus(400)
    assert.equal(badZone.body().error.details[0].field, 'sending.timezone')

    const badPrefix = await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ reception: { localPrefix: '+999' } })
    badPrefix.assertStatus(400)

    const mixed = await client
      .patch('/api/v1/settings')
      .header('x-api-key', testKeys.admin)
      .json({ general: { uppercase: true }, backup: { retention: 0 } })
    mixed.assertStatus(422)
    const after = await client.get('/api/v1/settings').header('x-api-key', testKeys.admin)
    assert.isFalse(after.body().general.uppercase)
  })

  test('an unknown section or field is refused rather than silently dropped', async ({ client, assert }) => {
    const section = await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ backups: { retention: 3 } })
    section.assertStatus(400)
    assert.equal(section.body().error.details[0].field, 'backups')

    const field = await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ backup: { retension: 3 } })
    assert.equal(field.body().error.code, 'VALIDATION_ERROR')
    assert.equal(field.body().error.details[0].field, 'backup.retension')
  })

  test('a change is announced with settings:changed naming the sections', async ({ client }) => {
    const events = emitter.fake()
    try {
      await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ backup: { enabled: false } })
      events.assertEmitted('settings:changed', ({ data }) => data.sections.join() === 'backup')
    } finally {
      emitter.restore()
    }
  })

  test('reading needs admin scope; changing needs admin scope', async ({ client, assert }) => {
    const read = await client.get('/api/v1/settings').header('x-api-key', testKeys.send)
    read.assertStatus(403)
    assert.equal(read.body().error.details.requiredScope, 'admin')
    const write = await client.patch('/api/v1/settings').header('x-api-key', testKeys.read).json({ backup: { retention: 3 } })
    write.assertStatus(403)
    assert.equal(write.body().error.code, 'FORBIDDEN_SCOPE')
  })
})

test.group('Settings: the SMTP password is write-only', (group) => {
  group.setup(() => useTestKeys())
  group.each.teardown(async () => {
    await (await app.container.make(SettingsStore)).update({ notifications: settingsCatalogue.defaults('notifications') })
  })

  test('answered masked, stored sealed, kept when the mask is sent back, cleared by null', async ({ client, assert }) => {
    const patch = (body: unknown) => client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json(body as any)
    const set = await patch({ notifications: { smtpHost: 'smtp.example.com', smtpUsername: 'alerts', smtpPassword: 'p4ssw0rd-smtp' } })
    set.assertStatus(200)
    assert.equal(set.body().notifications.smtpPassword, '********')
    assert.notInclude(JSON.stringify(set.body()), 'p4ssw0rd-smtp')
    const shown = await client.get('/api/v1/settings').header('x-api-key', testKeys.admin)
    assert.equal(shown.body().notifications.smtpPassword, '********')
    const row = await db.from('settings').where('section', 'notifications').first()
    assert.notInclude(row.value, 'p4ssw0rd-smtp')

    const store = await app.container.make(SettingsStore)
    ;(await patch({ notifications: { smtpPassword: '********', smtpPort: 2525 } })).assertStatus(200)
    assert.equal(await store.revealSecret('notifications', 'smtpPassword'), 'p4ssw0rd-smtp')
    ;(await patch({ notifications: { smtpPassword: null } })).assertStatus(200)
    assert.isNull(await store.revealSecret('notifications', 'smtpPassword'))
    assert.isNull((await client.get('/api/v1/settings').header('x-api-key', testKeys.admin)).body().notifications.smtpPassword)
  })
})
