import { test } from '@japa/runner'
import { readFileSync } from 'node:fs'
import db from '@adonisjs/lucid/services/db'
import { DataFolder } from '#core/data_folder/data_folder'
import { flushLogFile } from '#core/logging/log_file'
import { asBrowser, signInAs, testKeys, useTestKeys, type BrowserSession } from '#tests/helpers/callers'

test.group('API keys', (group) => {
  let admin: BrowserSession
  group.setup(async () => {
    await useTestKeys()
  })
  group.each.setup(async ({ context }) => {
    admin = await signInAs(context.client, 'superadmin')
  })

  async function createKey(client: any, body: Record<string, unknown>) {
    const response = await asBrowser(client.post('/api/v1/api-keys'), admin).json(body)
    response.assertStatus(201)
    return response.body() as { apiKey: any; secret: string }
  }

  test('creation answers the key and its secret once; the key shows only the last four characters', async ({ client, assert }) => {
    const { apiKey, secret } = await createKey(client, { name: 'CRM sync', scope: 'send', callsPerMinute: 60 })
    assert.match(secret, /^gw_[\w-]{43}$/)
    assert.deepInclude(apiKey, { name: 'CRM sync', scope: 'send', lastFour: secret.slice(-4), callsPerMinute: 60, callsPerDay: null, lastUsedAt: null })
    assert.deepEqual(apiKey.allowedIps, [])
    assert.match(apiKey.createdAt, /Z$/)

    const me = await client.get('/api/v1/auth/me').header('x-api-key', secret)
    me.assertStatus(200)
    assert.equal(me.body().apiKey.id, apiKey.id)

    const listed = await client.get('/api/v1/api-keys').header('x-api-key', testKeys.admin)
    listed.assertStatus(200)
    const item = listed.body().data.find((key: any) => key.id === apiKey.id)
    assert.equal(item.lastFour, secret.slice(-4))
    assert.isString(item.lastUsedAt, 'lastUsedAt is set by the call above')
    assert.notInclude(JSON.stringify(listed.body()), secret)
  })

  test("a key's secret appears nowhere after creation: not in the database, the log or an answer", async ({ client, assert }) => {
    const { apiKey, secret } = await createKey(client, { name: 'Leak probe', scope: 'read' })
    await client.get('/api/v1/activity').header('x-api-key', secret)
    await client.get('/api/v1/activity').qs({ api_key: secret })
    await asBrowser(client.patch(`/api/v1/api-keys/${apiKey.id}`), admin).json({ name: 'Leak probe 2' })

    await db.rawQuery('PRAGMA wal_checkpoint(FULL)')
    flushLogFile()
    const folder = DataFolder.current()
    const files = [folder.databaseFile, `${folder.databaseFile}-wal`, folder.logFile]
    for (const file of files) {
      let content: Buffer
      try {
        content = readFileSync(file)
      } catch {
        continue
      }
      assert.equal(content.indexOf(secret), -1, `${file} holds the secret`)
    }
    // Every text column of every table, in case SQLite stored it somewhere unexpected.
    const tables = await db.rawQuery("SELECT name FROM sqlite_master WHERE type = 'table'")
    for (const { name } of tables) {
      const rows = await db.from(name).select('*')
      assert.notInclude(JSON.stringify(rows), secret, `table ${name}`)
    }
    for (const answer of [
      await client.get('/api/v1/api-keys').header('x-api-key', testKeys.admin),
      await client.get('/api/v1/activity').header('x-api-key', testKeys.admin),
      await client.get('/api/v1/logs/technical').qs({ limit: 200 }).header('x-api-key', testKeys.admin),
    ]) {
      assert.notInclude(answer.text(), secret)
    }
  })

  test('rotation gives a new secret and the old one is INVALID_API_KEY at once', async ({ client, assert }) => {
    const { apiKey, secret } = await createKey(client, { name: 'Rotating', scope: 'read' })
    ;(await client.get('/api/v1/auth/me').header('x-api-key', secret)).assertStatus(200)
    const rotated = await asBrowser(client.post(`/api/v1/api-keys/${apiKey.id}/rotate`), admin)
    rotated.assertStatus(200)
    assert.notEqual(rotated.body().secret, secret)
    assert.equal(rotated.body().apiKey.lastFour, rotated.body().secret.slice(-4))
    const old = await client.get('/api/v1/auth/me').header('x-api-key', secret)
    old.assertStatus(403)
    assert.equal(old.body().error.code, 'INVALID_API_KEY')
    ;(await client.get('/api/v1/auth/me').header('x-api-key', rotated.body().secret)).assertStatus(200)
  })

  test('revocation: INVALID_API_KEY from then on, and the key leaves the list', async ({ client, assert }) => {
    const { apiKey, secret } = await createKey(client, { name: 'Revoked', scope: 'admin' })
    ;(await client.get('/api/v1/auth/me').header('x-api-key', secret)).assertStatus(200)
    ;(await asBrowser(client.delete(`/api/v1/api-keys/${apiKey.id}`), admin)).assertStatus(204)
    const after = await client.get('/api/v1/auth/me').header('x-api-key', secret)
    after.assertStatus(403)
    assert.equal(after.body().error.code, 'INVALID_API_KEY')
    const list = await client.get('/api/v1/api-keys').qs({ limit: 200 }).header('x-api-key', testKeys.admin)
    assert.notInclude(list.body().data.map((key: any) => key.id), apiKey.id)
    ;(await asBrowser(client.delete(`/api/v1/api-keys/${apiKey.id}`), admin)).assertStatus(404)
  })

  test('GET /auth/me answers the key as stored: lastUsedAt once used, a change seen at the next call (it is kept in memory)', async ({ client, assert }) => {
    const { apiKey, secret } = await createKey(client, { name: 'Seen by me', scope: 'read' })
    const first = (await client.get('/api/v1/auth/me').header('x-api-key', secret)).body().apiKey
    const stored = await db.from('api_keys').where('id', Number(apiKey.id)).first()
    assert.isString(first.lastUsedAt)
    assert.equal(first.lastUsedAt, stored.last_used_at)

    ;(await asBrowser(client.patch(`/api/v1/api-keys/${apiKey.id}`), admin).json({ name: 'Renamed', callsPerMinute: 7 })).assertStatus(200)
    const changed = await client.get('/api/v1/auth/me').header('x-api-key', secret)
    assert.deepInclude(changed.body().apiKey, { name: 'Renamed', callsPerMinute: 7, lastUsedAt: first.lastUsedAt })
    const listed = (await client.get('/api/v1/api-keys').header('x-api-key', testKeys.admin)).body().data.find((key: any) => key.id === apiKey.id)
    assert.deepEqual(changed.body().apiKey, listed)
  })

  test('PATCH changes name, scope, addresses and limits; null clears a limit', async ({ client, assert }) => {
    const { apiKey, secret } = await createKey(client, { name: 'Changing', scope: 'read', callsPerDay: 10 })
    const changed = await asBrowser(client.patch(`/api/v1/api-keys/${apiKey.id}`), admin).json({ scope: 'admin', callsPerDay: null, callsPerMinute: 5 })
    changed.assertStatus(200)
    assert.deepInclude(changed.body(), { scope: 'admin', callsPerDay: null, callsPerMinute: 5, name: 'Changing' })
    // The new scope applies to the next call.
    ;(await client.get('/api/v1/logs/technical').header('x-api-key', secret)).assertStatus(200)
  })

  test('names are unique ignoring case; bad fields are 400 naming the field', async ({ client, assert }) => {
    await createKey(client, { name: 'Unique name', scope: 'read' })
    const taken = await asBrowser(client.post('/api/v1/api-keys'), admin).json({ name: 'UNIQUE NAME', scope: 'read' })
    taken.assertStatus(409)
    assert.equal(taken.body().error.code, 'VALIDATION_ERROR')

    for (const [body, field] of [
      [{ name: 'x', scope: 'root' }, 'scope'],
      [{ name: '', scope: 'read' }, 'name'],
      [{ name: 'x', scope: 'read', allowedIps: ['10.0.0.0/33'] }, 'allowedIps.0'],
      [{ name: 'x', scope: 'read', callsPerMinute: 0 }, 'callsPerMinute'],
      [{ name: 'x', scope: 'read', callsPerDay: 1.5 }, 'callsPerDay'],
    ] as const) {
      const response = await asBrowser(client.post('/api/v1/api-keys'), admin).json(body)
      response.assertStatus(400)
      assert.equal(response.body().error.details[0].field, field)
    }
  })

  test('allowed addresses: single IPv4, CIDR and IPv6; elsewhere 403 IP_NOT_ALLOWED', async ({ client, assert }) => {
    const loopbackOnly = await createKey(client, { name: 'Loopback only', scope: 'read', allowedIps: ['127.0.0.1'] })
    ;(await client.get('/api/v1/auth/me').header('x-api-key', loopbackOnly.secret)).assertStatus(200)

    const office = await createKey(client, { name: 'Office range', scope: 'read', allowedIps: ['10.0.0.0/8', '2001:db8::/32'] })
    const refused = await client.get('/api/v1/auth/me').header('x-api-key', office.secret)
    refused.assertStatus(403)
    assert.equal(refused.body().error.code, 'IP_NOT_ALLOWED')
    assert.notInclude(JSON.stringify(refused.body()), '127.0.0.1')

    // Through a reverse proxy on this machine (trusted: loopback) the caller is the forwarded address.
    ;(await client.get('/api/v1/auth/me').header('x-api-key', office.secret).header('x-forwarded-for', '10.20.30.40')).assertStatus(200)
    ;(await client.get('/api/v1/auth/me').header('x-api-key', office.secret).header('x-forwarded-for', '2001:db8:5::1')).assertStatus(200)
    ;(await client.get('/api/v1/auth/me').header('x-api-key', office.secret).header('x-forwarded-for', '2001:db9::1')).assertStatus(403)
  })

  test('key management is a superadmin session only; an admin key may list', async ({ client, assert }) => {
    const operator = await signInAs(client, 'operator')
    const byOperator = await asBrowser(client.post('/api/v1/api-keys'), operator).json({ name: 'nope', scope: 'read' })
    byOperator.assertStatus(403)
    assert.equal(byOperator.body().error.code, 'FORBIDDEN_SCOPE')
    const byKey = await client.post('/api/v1/api-keys').header('x-api-key', testKeys.admin).json({ name: 'nope', scope: 'read' })
    byKey.assertStatus(403)
    assert.equal(byKey.body().error.code, 'FORBIDDEN_SCOPE')
    ;(await client.get('/api/v1/api-keys').header('x-api-key', testKeys.send)).assertStatus(403)
  })
})
