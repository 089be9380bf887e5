import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { ActivityLog } from '#core/activity/activity_log'
import { useManualClock } from '#tests/helpers/clock'
import { useTestKeys, testKeys } from '#tests/helpers/callers'

test.group('Activity log and list pagination', (group) => {
  let activity: ActivityLog
  let clock: ReturnType<typeof useManualClock>['clock']

  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await db.from('activity_entries').delete()
    const manual = useManualClock('2026-06-01T12:00:00.000Z')
    clock = manual.clock
    // A fresh ActivityLog so it reads the manual clock.
    activity = new ActivityLog(clock, await app.container.make('logger'))
    return manual.restore
  })

  async function seed(count: number) {
    for (let index = 0; index < count; index++) {
      await activity.info('tests', 'tests.test', `entry ${index}`)
      await clock.advance(1000)
    }
  }

  test('GET /activity is open to read scope and lists newest first in the envelope', async ({ client, assert }) => {
    await activity.info('backups', 'backups.test', 'Backup written', { name: 'a.db' })
    await clock.advance(1000)
    await activity.error('webhooks', 'webhooks.test', 'Webhook switched off')

    const response = await client.get('/api/v1/activity').header('x-api-key', testKeys.read)
    response.assertStatus(200)
    const body = response.body()
    assert.properties(body, ['data', 'nextCursor'])
    assert.isNull(body.nextCursor)
    assert.deepEqual(
      body.data.map((entry: any) => [entry.level, entry.source, entry.message]),
      [
        ['error', 'webhooks', 'Webhook switched off'],
        ['info', 'backups', 'Backup written'],
      ]
    )
    assert.equal(body.data[0].createdAt, '2026-06-01T12:00:01.000Z')
    assert.isString(body.data[0].id)
    assert.deepEqual(body.data[1].details, { name: 'a.db' })
  })

  test('limit defaults to 50; pages chain with nextCursor to a null on the last page', async ({ client, assert }) => {
    await seed(120)
    const seen: string[] = []
    let cursor: string | undefined
    const sizes: number[] = []
    for (let page = 0; page < 5; page++) {
      const response = await client
        .get('/api/v1/activity')
        .qs(cursor ? { cursor } : {})
        .header('x-api-key', testKeys.read)
      response.assertStatus(200)
      sizes.push(response.body().data.length)
      seen.push(...response.body().data.map((entry: any) => entry.message))
      cursor = response.body().nextCursor ?? undefined
      if (!cursor) break
    }
    assert.deepEqual(sizes, [50, 50, 20])
    assert.equal(seen[0], 'entry 119')
    assert.equal(seen.at(-1), 'entry 0')
    assert.equal(new Set(seen).size, 120)
  })

  test('a cursor stays correct while rows are inserted between pages', async ({ client, assert }) => {
    await seed(30)
    const first = await client.get('/api/v1/activity').qs({ limit: 10 }).header('x-api-key', testKeys.read)
    await seed(7)
    const rest: string[] = []
    let cursor = first.body().nextCursor
    while (cursor) {
      const page = await client.get('/api/v1/activity').qs({ limit: 10, cursor }).header('x-api-key', testKeys.read)
      rest.push(...page.body().data.map((entry: any) => entry.message))
      cursor = page.body().nextCursor
    }
    const firstPage = first.body().data.map((entry: any) => entry.message)
    assert.deepEqual(firstPage, Array.from({ length: 10 }, (_, index) => `entry ${29 - index}`))
    assert.deepEqual(rest, Array.from({ length: 20 }, (_, index) => `entry ${19 - index}`))
  })

  test('rows sharing one timestamp still page exactly once each', async ({ client, assert }) => {
    for (let index = 0; index < 25; index++) await activity.info('tests', 'tests.test', `same second ${index}`)
    const seen: string[] = []
    let cursor: string | undefined
    do {
      const page = await client
        .get('/api/v1/activity')
        .qs({ limit: 7, ...(cursor ? { cursor } : {}) })
        .header('x-api-key', testKeys.read)
      seen.push(...page.body().data.map((entry: any) => entry.message))
      cursor = page.body().nextCursor ?? undefined
    } while (cursor)
    assert.equal(seen.length, 25)
    assert.equal(new Set(seen).size, 25)
  })

  test('limit 1 and 200 are accepted; 0, 201, 2.5 and text are 400 VALIDATION_ERROR on limit', async ({ client, assert }) => {
    await seed(3)
    for (const limit of [1, 200]) {
      const response = await client.get('/api/v1/activity').qs({ limit }).header('x-api-key', testKeys.read)
      response.assertStatus(200)
    }
    for (const limit of [0, 201, 2.5, 'ten']) {
      const response = await client.get('/api/v1/activity').qs({ limit }).header('x-api-key', testKeys.read)
      response.assertStatus(400)
      assert.equal(response.body().error.code, 'VALIDATION_ERROR')
      assert.equal(response.body().error.details[0].field, 'limit')
    }
  })

  test('a malformed cursor is 400 VALIDATION_ERROR on cursor', async ({ client, assert }) => {
    for (const cursor of ['garbage', Buffer.from('{"v":1,"s":"x"}').toString('base64url')]) {
      const response = await client.get('/api/v1/activity').qs({ cursor }).header('x-api-key', testKeys.read)
      response.assertStatus(400)
      assert.equal(response.body().error.code, 'VALIDATION_ERROR')
      assert.equal(response.body().error.details[0].field, 'cursor')
    }
  })

  test('filters by level and source', async ({ client, assert }) => {
    await activity.info('backups', 'backups.test', 'ok')
    await activity.warning('devices', 'devices.test', 'battery low')
    await activity.error('backups', 'backups.test', 'disk full')
    const errors = await client.get('/api/v1/activity').qs({ level: 'error' }).header('x-api-key', testKeys.read)
    assert.deepEqual(errors.body().data.map((entry: any) => entry.message), ['disk full'])
    const backups = await client.get('/api/v1/activity').qs({ source: 'backups' }).header('x-api-key', testKeys.read)
    assert.lengthOf(backups.body().data, 2)
    const bad = await client.get('/api/v1/activity').qs({ level: 'panic' }).header('x-api-key', testKeys.read)
    bad.assertStatus(400)
  })
  test('filters by kind (one, or a family), by actor (an account, a key, the gateway itself) and lists the actors', async ({ client, assert }) => {
    await activity.info('webhooks', 'webhook.created', 'Webhook "A" was created')
    await activity.warning('webhooks', 'webhook.disabled', 'Webhook "A" was switched off')
    await activity.info('devices', 'device.paired', 'Phone "Desk" paired')
    const kinds = async (qs: Record<string, string>) =>
      (await client.get('/api/v1/activity').qs(qs).header('x-api-key', testKeys.read)).body().data.map((entry: any) => entry.kind)
    assert.deepEqual(await kinds({ kind: 'webhook.disabled' }), ['webhook.disabled'])
    assert.sameMembers(await kinds({ kind: 'webhook' }), ['webhook.created', 'webhook.disabled'])
    assert.deepEqual(await kinds({ kind: 'webhook.dis' }), [])

    // Written through the API by a key and by a signed-in account: the entry names them.
    await db.from('automation_rules').delete()
    const created = await client.post('/api/v1/rules').header('x-api-key', testKeys.admin).json({ name: 'Made by a key', actions: [{ type: 'opt_in' }] })
    created.assertStatus(201)
    const byKey = (await client.get('/api/v1/activity').qs({ kind: 'rule.created' }).header('x-api-key', testKeys.read)).body().data[0]
    assert.match(byKey.actor, /^api_key:\d+$/)
    assert.isString(byKey.actorName)
    const system = (await client.get('/api/v1/activity').qs({ actor: 'system' }).header('x-api-key', testKeys.read)).body().data
    assert.includeMembers(system.map((entry: any) => entry.kind), ['webhook.created', 'device.paired'])
    assert.isTrue(system.every((entry: any) => entry.actor === null && entry.actorName === null))
    const mine = (await client.get('/api/v1/activity').qs({ actor: byKey.actor }).header('x-api-key', testKeys.read)).body().data
    assert.deepEqual(mine.map((entry: any) => entry.kind), ['rule.created'])
    const actors = (await client.get('/api/v1/activity/actors').header('x-api-key', testKeys.read)).body().data
    assert.deepInclude(actors, { actor: byKey.actor, name: byKey.actorName })
    const bad = await client.get('/api/v1/activity').qs({ actor: 'someone' }).header('x-api-key', testKeys.read)
    bad.assertStatus(400)

    // A settings change names its sections and fields, never their values.
    await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ reception: { optOutReply: 'Bye now' } })
    const [settings] = (await client.get('/api/v1/activity').qs({ kind: 'settings.changed' }).header('x-api-key', testKeys.read)).body().data
    assert.equal(settings.message, 'Settings changed: reception (optOutReply)')
    assert.equal(settings.actor, byKey.actor)
    await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ reception: { optOutReply: null } })
    await db.from('automation_rules').delete()
  })

  test('filters by date range and by words of the message; a bad date is a 400 on its field', async ({ client, assert }) => {
    await activity.info('auth', 'auth.test', 'Owner created account Ops with role operator')
    await clock.advance(60_000)
    await activity.info('auth', 'auth.test', 'Owner deleted account Ops (operator)')
    await clock.advance(60_000)
    await activity.info('devices', 'devices.test', 'Phone "Desk" paired')
    const messages = async (qs: Record<string, string>) => {
      const response = await client.get('/api/v1/activity').qs(qs).header('x-api-key', testKeys.read)
      response.assertStatus(200)
      return response.body().data.map((entry: any) => entry.message)
    }
    // 12:01 is when the second entry was written: since includes it, until excludes it.
    assert.deepEqual(await messages({ since: '2026-06-01T12:01:00.000Z' }), ['Phone "Desk" paired', 'Owner deleted account Ops (operator)'])
    assert.deepEqual(await messages({ until: '2026-06-01T12:01:00Z' }), ['Owner created account Ops with role operator'])
    assert.deepEqual(await messages({ since: '2026-06-01T12:00:30Z', until: '2026-06-01T12:01:30Z' }), ['Owner deleted account Ops (operator)'])
    assert.deepEqual(await messages({ search: 'ACCOUNT ops' }), ['Owner deleted account Ops (operator)', 'Owner created account Ops with role operator'])
    // LIKE wildcards are words like any other, not patterns.
    assert.deepEqual(await messages({ search: '%' }), [])
    assert.deepEqual(await messages({ search: 'account', source: 'auth', since: '2026-06-01T12:00:30Z' }), ['Owner deleted account Ops (operator)'])

    const bad = await client.get('/api/v1/activity').qs({ since: 'yesterday' }).header('x-api-key', testKeys.read)
    bad.assertStatus(400)
    assert.equal(bad.body().error.details[0].field, 'since')
  })
})
