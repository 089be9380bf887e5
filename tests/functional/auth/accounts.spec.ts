import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import app from '@adonisjs/core/services/app'
import { SignInAttempts } from '#modules/auth/services/sign_in_throttle'
import { SettingsStore } from '#core/settings/settings_store'
import { useManualClock } from '#tests/helpers/clock'
import { TEST_PASSWORD, accountWithRole, asBrowser, cookiesFrom, signIn, signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'

test.group('First account and sign-in', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await db.from('sessions').delete()
    await db.from('users').delete()
    await (await app.container.make(SignInAttempts)).clear()
  })

  test('setup creates the first account as superadmin and signs it in; refused with 409 once any exists', async ({ client, assert }) => {
    const response = await client.post('/api/v1/auth/setup').json({ email: 'Owner@Example.test', password: TEST_PASSWORD, name: 'Owner' })
    response.assertStatus(201)
    assert.deepInclude(response.body().user, { email: 'owner@example.test', name: 'Owner', role: 'superadmin' })
    assert.notProperty(response.body().user, 'password')
    const stored = await db.from('users').where('email', 'owner@example.test').first()
    assert.match(stored.password, /^\$scrypt\$/)
    assert.notInclude(stored.password, TEST_PASSWORD)
    // No one was signed in: the entry names the account that set itself up.
    const entry = await db.from('activity_entries').where('kind', 'account.created').orderBy('id', 'desc').first()
    assert.deepInclude(entry, { actor: `account:${stored.id}`, actor_name: 'Owner' })

    const session = cookiesFrom(response)
    const me = await client.get('/api/v1/auth/me').header('cookie', session.cookie)
    me.assertStatus(200)
    assert.equal(me.body().type, 'session')
    assert.equal(me.body().role, 'superadmin')

    const again = await client.post('/api/v1/auth/setup').json({ email: 'second@example.test', password: TEST_PASSWORD, name: 'Second' })
    again.assertStatus(409)
    assert.equal(again.body().error.code, 'ALREADY_SET_UP')
  })

  test('GET /auth/setup tells whether the first-account setup is open, without signing in', async ({ client, assert }) => {
    const fresh = await client.get('/api/v1/auth/setup')
    fresh.assertStatus(200)
    assert.deepEqual(fresh.body(), { open: true })
    assert.isUndefined(fresh.headers()['set-cookie'])

    const created = await client.post('/api/v1/auth/setup').json({ email: 'owner@example.test', password: TEST_PASSWORD, name: 'Owner' })
    created.assertStatus(201)
    const done = await client.get('/api/v1/auth/setup')
    done.assertStatus(200)
    assert.deepEqual(done.body(), { open: false })
  })

  test('the session cookie is HttpOnly and SameSite=Lax, and Secure behind https', async ({ client, assert }) => {
    const account = await accountWithRole('operator')
    const plain = await client.post('/api/v1/auth/login').json({ email: account.email, password: TEST_PASSWORD })
    const sessionCookie = (plain.headers()['set-cookie'] as unknown as string[]).find((line) => line.startsWith('gateway_session='))!
    assert.match(sessionCookie, /HttpOnly/i)
    assert.match(sessionCookie, /SameSite=Lax/i)
    assert.notMatch(sessionCookie, /Secure/i)

    // A reverse proxy on this machine (trusted: loopback) says the browser came over https.
    const https = await client.post('/api/v1/auth/login').header('x-forwarded-proto', 'https').json({ email: account.email, password: TEST_PASSWORD })
    for (const line of https.headers()['set-cookie'] as unknown as string[]) assert.match(line, /;\s*Secure/i, line)
  })

  test('a wrong password is 401 INVALID_CREDENTIALS, as is an unknown address', async ({ client, assert }) => {
    const account = await accountWithRole('readonly')
    for (const body of [
      { email: account.email, password: 'wrong password here' },
      { email: 'nobody@gateway.test', password: TEST_PASSWORD },
    ]) {
      const response = await client.post('/api/v1/auth/login').json(body)
      response.assertStatus(401)
      assert.equal(response.body().error.code, 'INVALID_CREDENTIALS')
      assert.notInclude(JSON.stringify(response.body()), body.password)
    }
  })

  test('repeated failures for an address are slowed, then refused with 429 and Retry-After', async ({ client, assert }) => {
    const { clock, restore } = useManualClock('2026-07-01T10:00:00.000Z')
    try {
      const account = await accountWithRole('operator')
      // Through a reverse proxy on this machine (trusted: loopback): the guesser's own address.
      const from = (ip: string, password: string) =>
        client.post('/api/v1/auth/login').header('x-forwarded-for', ip).json({ email: account.email, password })
      for (let attempt = 0; attempt < 3; attempt++) (await from('203.0.113.9', 'not the password')).assertStatus(401)

      // Slowed: the 4th try must wait 1 s after the 3rd failure, even with the right password.
      const early = await from('203.0.113.9', TEST_PASSWORD)
      early.assertStatus(429)
      assert.equal(early.body().error.code, 'RATE_LIMITED')
      assert.equal(early.header('retry-after'), '1')

      // Waits grow: 1, 2, 4, ... seconds.
      let wait = 1
      for (let failures = 3; failures < 10; failures++) {
        await clock.advance(wait * 1000)
        ;(await from('203.0.113.9', 'not the password')).assertStatus(401)
        wait *= 2
      }
      // Ten failures: refused for 15 minutes whatever the password.
      await clock.advance(10 * 60_000)
      const locked = await from('203.0.113.9', TEST_PASSWORD)
      locked.assertStatus(429)
      assert.equal(locked.header('retry-after'), String(5 * 60))

      // The guesser cannot lock the owner out: the same address signs in from elsewhere.
      ;(await from('198.51.100.20', TEST_PASSWORD)).assertStatus(200)

      await clock.advance(5 * 60_000)
      ;(await from('203.0.113.9', TEST_PASSWORD)).assertStatus(200)
      // A success forgets that address's failures from there.
      ;(await from('203.0.113.9', 'not the password')).assertStatus(401)
      ;(await from('203.0.113.9', TEST_PASSWORD)).assertStatus(200)
    } finally {
      restore()
    }
  })

  test('parallel guesses are counted as they arrive: only 3 reach the password check', async ({ client, assert }) => {
    const account = await accountWithRole('readonly')
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        client.post('/api/v1/auth/login').header('x-forwarded-for', '203.0.113.50').json({ email: account.email, password: 'wrong guess here' })
      )
    )
    const statuses = answers.map((answer) => answer.status())
    assert.equal(statuses.filter((status) => status === 401).length, 3)
    assert.equal(statuses.filter((status) => status === 429).length, 17)
  })

  test('one network address trying many addresses is slowed after 10 failures', async ({ client, assert }) => {
    const statuses: number[] = []
    for (let index = 0; index < 11; index++) {
      const response = await client
        .post('/api/v1/auth/login')
        .header('x-forwarded-for', '203.0.113.77')
        .json({ email: `someone${index}@gateway.test`, password: 'wrong guess here' })
      statuses.push(response.status())
    }
    assert.deepEqual(statuses, [...Array(10).fill(401), 429])
  })

  test('failed sign-ins leave no session rows behind', async ({ client, assert }) => {
    const account = await accountWithRole('operator')
    for (let index = 0; index < 3; index++) {
      await client.post('/api/v1/auth/login').header('x-forwarded-for', '203.0.113.80').json({ email: account.email, password: 'wrong guess here' })
    }
    assert.equal(Number((await db.from('sessions').count('* as total').first()).total), 0)
    ;(await client.post('/api/v1/auth/login').json({ email: account.email, password: TEST_PASSWORD })).assertStatus(200)
    assert.equal(Number((await db.from('sessions').count('* as total').first()).total), 1)
  })

  test('an X-API-KEY header on sign-in is ignored, not a crash', async ({ client }) => {
    const account = await accountWithRole('operator')
    const response = await client.post('/api/v1/auth/login').header('x-api-key', testKeys.admin).json({ email: account.email, password: TEST_PASSWORD })
    response.assertStatus(200)
  })

  test('logout ends the session', async ({ client, assert }) => {
    const session = await signInAs(client, 'operator')
    ;(await client.get('/api/v1/auth/me').header('cookie', session.cookie)).assertStatus(200)
    const out = await asBrowser(client.post('/api/v1/auth/logout'), session)
    out.assertStatus(204)
    const after = await client.get('/api/v1/auth/me').header('cookie', session.cookie)
    after.assertStatus(401)
    assert.equal(after.body().error.code, 'MISSING_API_KEY')
  })

  test('GET /auth/me with a key answers the key and its scope, never its secret', async ({ client, assert }) => {
    const response = await client.get('/api/v1/auth/me').header('x-api-key', testKeys.send)
    response.assertStatus(200)
    assert.equal(response.body().type, 'api_key')
    assert.equal(response.body().scope, 'send')
    assert.equal(response.body().apiKey.lastFour, testKeys.send.slice(-4))
    assert.notInclude(JSON.stringify(response.body()), testKeys.send)
  })

  test('GET /auth/me names the platform time zone for every caller, a read-only account included', async ({ client, assert }) => {
    const settings = await app.container.make(SettingsStore)
    const before = (await settings.get('sending')).timezone
    await settings.update({ sending: { timezone: 'Europe/Paris' } })
    try {
      const readonly = await signInAs(client, 'readonly')
      const asPerson = await client.get('/api/v1/auth/me').header('cookie', readonly.cookie)
      assert.equal(asPerson.body().timezone, 'Europe/Paris')
      const asKey = await client.get('/api/v1/auth/me').header('x-api-key', testKeys.read)
      assert.equal(asKey.body().timezone, 'Europe/Paris')
    } finally {
      await settings.update({ sending: { timezone: before } })
    }
  })
})

test.group('CSRF on cookie-authenticated writes', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await db.from('sessions').delete()
  })

  test('the XSRF-TOKEN cookie lives as long as the session (12 h), not the cookies\' default 2 h', async ({ client, assert }) => {
    const session = await signInAs(client, 'superadmin')
    const answer = await client.get('/api/v1/auth/me').header('cookie', session.cookie)
    const cookies = ([] as string[]).concat(answer.header('set-cookie') ?? [])
    const xsrf = cookies.find((cookie) => cookie.startsWith('XSRF-TOKEN='))
    const sessionCookie = cookies.find((cookie) => cookie.startsWith('gateway_session='))
    assert.match(xsrf ?? '', /Max-Age=43200/)
    assert.match(sessionCookie ?? '', /Max-Age=43200/)
  })

  test('a session write without the X-XSRF-TOKEN header is 403 INVALID_CSRF_TOKEN; with it, it goes through', async ({ client, assert }) => {
    const session = await signInAs(client, 'superadmin')
    const without = await client.patch('/api/v1/settings').header('cookie', session.cookie).json({ general: { uppercase: false } })
    without.assertStatus(403)
    assert.equal(without.body().error.code, 'INVALID_CSRF_TOKEN')

    const forged = await client
      .patch('/api/v1/settings')
      .header('cookie', session.cookie)
      .header('x-xsrf-token', 'e:forged-token')
      .json({ general: { uppercase: false } })
    forged.assertStatus(403)

    const withToken = await asBrowser(client.patch('/api/v1/settings'), session).json({ general: { uppercase: false } })
    withToken.assertStatus(200)
  })

  test('API-key calls are exempt, even with a stale session cookie beside them', async ({ client }) => {
    const session = await signInAs(client, 'readonly')
    const response = await client
      .patch('/api/v1/settings')
      .header('cookie', session.cookie)
      .header('x-api-key', testKeys.admin)
      .json({ general: { uppercase: false } })
    response.assertStatus(200)
  })

  test('API-key calls and anonymous calls create no session rows', async ({ client, assert }) => {
    await client.get('/api/v1/activity').header('x-api-key', testKeys.read)
    await client.get('/api/v1/activity')
    await client.get('/health')
    const rows = await db.from('sessions').count('* as total').first()
    assert.equal(Number(rows.total), 0)
  })
})

test.group('Accounts (superadmin session only)', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await db.from('sessions').delete()
    await db.from('users').delete()
  })

  test('every reader of conversations lists the accounts a conversation can be assigned to: names only, no read-only account', async ({ client, assert }) => {
    const operator = await signInAs(client, 'operator')
    await accountWithRole('superadmin')
    await accountWithRole('readonly')
    const listed = await asBrowser(client.get('/api/v1/users/assignable'), operator)
    listed.assertStatus(200)
    const roles = listed.body().data.map((account: { role: string }) => account.role).sort()
    assert.deepEqual(roles, ['operator', 'superadmin'])
    for (const account of listed.body().data) assert.deepEqual(Object.keys(account).sort(), ['id', 'name', 'role'])
    ;(await client.get('/api/v1/users/assignable').header('x-api-key', testKeys.read)).assertStatus(200)
    // The full list (with e-mails) stays the superadmin's.
    ;(await asBrowser(client.get('/api/v1/users'), operator)).assertStatus(403)
  })

  test('a superadmin creates, edits and deletes accounts', async ({ client, assert }) => {
    const admin = await signInAs(client, 'superadmin')
    const created = await asBrowser(client.post('/api/v1/users'), admin).json({
      email: 'Ops@Example.test',
      name: 'Ops',
      password: 'a long enough password',
      role: 'operator',
    })
    created.assertStatus(201)
    assert.deepInclude(created.body(), { email: 'ops@example.test', role: 'operator' })
    const id = created.body().id

    const changed = await asBrowser(client.patch(`/api/v1/users/${id}`), admin).json({ role: 'readonly', name: 'Ops team' })
    changed.assertStatus(200)
    assert.deepInclude(changed.body(), { role: 'readonly', name: 'Ops team' })

    const ops = await signIn(client, 'ops@example.test', 'a long enough password')
    ;(await client.get('/api/v1/auth/me').header('cookie', ops.cookie)).assertStatus(200)

    const deleted = await asBrowser(client.delete(`/api/v1/users/${id}`), admin)
    deleted.assertStatus(204)
    // The deleted account's session stops working at once.
    ;(await client.get('/api/v1/auth/me').header('cookie', ops.cookie)).assertStatus(401)
    ;(await asBrowser(client.delete(`/api/v1/users/${id}`), admin)).assertStatus(404)
  })

  test('the Activity log says who created, changed and deleted which account, and what changed, never an address or a password', async ({ client, assert }) => {
    await db.from('activity_entries').delete()
    const admin = await signInAs(client, 'superadmin')
    const created = await asBrowser(client.post('/api/v1/users'), admin).json({
      email: 'desk@example.test',
      name: 'Desk',
      password: 'a long enough password',
      role: 'operator',
    })
    created.assertStatus(201)
    const id = created.body().id
    const body = { role: 'readonly', password: 'another long password', email: 'desk2@example.test' }
    ;(await asBrowser(client.patch(`/api/v1/users/${id}`), admin).json(body)).assertStatus(200)
    ;(await asBrowser(client.delete(`/api/v1/users/${id}`), admin)).assertStatus(204)

    const entries = (await client.get('/api/v1/activity').qs({ source: 'auth', search: 'account Desk' }).header('x-api-key', testKeys.read)).body().data
    assert.deepEqual(
      entries.map((entry: any) => entry.message),
      [
        'Test superadmin deleted account Desk (readonly)',
        'Test superadmin changed account Desk: e-mail address changed, role operator → readonly, password set',
        'Test superadmin created account Desk with role operator',
      ]
    )
    const text = JSON.stringify(entries)
    for (const secret of ['desk@example.test', 'desk2@example.test', 'another long password', 'a long enough password']) assert.notInclude(text, secret)
  })

  test("a new password ends the account's other sessions", async ({ client, assert }) => {
    const admin = await signInAs(client, 'superadmin')
    const operator = await accountWithRole('operator')
    const operatorSession = await signIn(client, operator.email)
    ;(await client.get('/api/v1/auth/me').header('cookie', operatorSession.cookie)).assertStatus(200)
    const changed = await asBrowser(client.patch(`/api/v1/users/${operator.id}`), admin).json({ password: 'a brand new passphrase' })
    changed.assertStatus(200)
    const after = await client.get('/api/v1/auth/me').header('cookie', operatorSession.cookie)
    assert.equal(after.status(), 401)
    // The superadmin who made the change stays signed in.
    ;(await client.get('/api/v1/auth/me').header('cookie', admin.cookie)).assertStatus(200)
    ;(await client.post('/api/v1/auth/login').json({ email: operator.email, password: 'a brand new passphrase' })).assertStatus(200)
  })

  test('an e-mail address is unique ignoring case: 409 VALIDATION_ERROR', async ({ client, assert }) => {
    const admin = await signInAs(client, 'superadmin')
    const body = { email: 'Twice@Example.test', name: 'A', password: 'a long enough password', role: 'readonly' }
    ;(await asBrowser(client.post('/api/v1/users'), admin).json(body)).assertStatus(201)
    const again = await asBrowser(client.post('/api/v1/users'), admin).json({ ...body, email: 'twice@example.TEST' })
    again.assertStatus(409)
    assert.equal(again.body().error.code, 'VALIDATION_ERROR')
    assert.equal(again.body().error.details[0].field, 'email')
  })

  test('the last superadmin can be neither deleted nor demoted', async ({ client, assert }) => {
    const owner = await accountWithRole('superadmin')
    const session = await signIn(client, owner.email)
    const demote = await asBrowser(client.patch(`/api/v1/users/${owner.id}`), session).json({ role: 'operator' })
    demote.assertStatus(409)
    assert.equal(demote.body().error.code, 'LAST_SUPERADMIN')
    const remove = await asBrowser(client.delete(`/api/v1/users/${owner.id}`), session)
    remove.assertStatus(409)
    assert.equal(remove.body().error.code, 'LAST_SUPERADMIN')

    // With a second superadmin, the first may go.
    const second = await asBrowser(client.post('/api/v1/users'), session).json({
      email: 'second@example.test',
      name: 'Second',
      password: 'a long enough password',
      role: 'superadmin',
    })
    second.assertStatus(201)
    ;(await asBrowser(client.patch(`/api/v1/users/${owner.id}`), session).json({ role: 'operator' })).assertStatus(200)
  })

  test('account changes are refused to every API key, even admin; an admin key may list', async ({ client, assert }) => {
    const target = await accountWithRole('readonly')
    for (const request of [
      client.post('/api/v1/users').json({ email: 'x@example.test', name: 'X', password: 'a long enough password', role: 'readonly' }),
      client.patch(`/api/v1/users/${target.id}`).json({ name: 'Y' }),
      client.delete(`/api/v1/users/${target.id}`),
    ]) {
      const response = await request.header('x-api-key', testKeys.admin)
      response.assertStatus(403)
      assert.equal(response.body().error.code, 'FORBIDDEN_SCOPE')
    }
    const list = await client.get('/api/v1/users').header('x-api-key', testKeys.admin)
    list.assertStatus(200)
    assert.isAbove(list.body().data.length, 0)
    assert.notProperty(list.body().data[0], 'password')
  })
})
