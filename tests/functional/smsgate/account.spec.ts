import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { useTestKeys } from '#tests/helpers/callers'
import { clearDevices } from '#tests/helpers/devices'
import { FakeSmsgateApp } from '#tests/functional/smsgate/support/fake_smsgate_app'
import { pairedApp } from '#tests/functional/smsgate/support/smsgate_phones'

const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`

/**
 * The app's account calls (docs/smsgate.md): a paired phone asks a code to pair another
 * (`GET /user/code`, with the login and password it shows) and changes that password
 * (`PATCH /user/password`); over real HTTP with real SQLite, refusals in the app's statuses.
 */
test.group('SMSGate app: a code for another phone, and its password', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearDevices())

  test('GET /user/code with the login and password the app shows answers a code that pairs another phone, once', async ({ client, assert }) => {
    const first = await pairedApp(client, { connect: false })
    const before = Date.now()
    const answer = await first.call('GET', '/user/code', { authorization: basic(first.login, first.password!) })
    assert.equal(answer.status, 200)
    assert.sameMembers(Object.keys(answer.json), ['code', 'validUntil'])
    // The app's "By code" field takes digits only.
    assert.match(answer.json.code, /^\d{8}$/)
    const validFor = Date.parse(answer.json.validUntil) - before
    assert.isAbove(validFor, 9 * 60_000)
    assert.isAtMost(validFor, 10 * 60_000 + 5_000)

    const second = new FakeSmsgateApp(first.apiUrl)
    assert.equal((await second.register(answer.json.code)).status, 201)
    assert.notEqual(second.id, first.id)
    const third = new FakeSmsgateApp(first.apiUrl)
    assert.equal((await third.register(answer.json.code)).status, 401)
    assert.lengthOf(await db.from('devices').where('kind', 'smsgate'), 2)
  })

  test('wrong or missing credentials: 401 and no code; five wrong ones from an address: 429 with Retry-After', async ({ client, assert }) => {
    const app = await pairedApp(client, { connect: false })
    const codes = async () => (await db.from('pairing_codes').count('* as count'))[0].count
    const made = await codes()
    for (const authorization of [null, `Bearer ${app.token}`, 'Basic !!!', basic(app.login, 'wrong-password-here'), basic('NOBODY', app.password!)]) {
      const answer = await app.call('GET', '/user/code', { authorization })
      assert.equal(answer.status, 401, String(authorization))
    }
    // Two of them were wrong credentials (the others never named any); three more reach the
    // limit, and the next is refused, right or not.
    for (let attempt = 0; attempt < 3; attempt++) assert.equal((await app.call('GET', '/user/code', { authorization: basic(app.login, 'x') })).status, 401)
    const throttled = await app.call('GET', '/user/code', { authorization: basic(app.login, app.password!) })
    assert.equal(throttled.status, 429)
    assert.match(String(throttled.headers['retry-after']), /^\d+$/)
    assert.equal(await codes(), made)
  })

  test('PATCH /user/password: the current one must be right and the new one 14 characters; then only the new one works', async ({ client, assert }) => {
    const app = await pairedApp(client, { connect: false })
    const old = app.password!
    const change = (currentPassword: string, newPassword: string, authorization?: string | null) =>
      app.call('PATCH', '/user/password', { body: { currentPassword, newPassword }, authorization })
    assert.equal((await change('not-the-password', 'a-new-password-of-length')).status, 401)
    assert.equal((await change(old, 'too-short')).status, 400)
    assert.equal((await change(old, 'a-new-password-of-length', null)).status, 401)
    assert.equal((await change(old, 'a-new-password-of-length')).status, 204)
    assert.equal((await app.call('GET', '/user/code', { authorization: basic(app.login, old) })).status, 401)
    assert.equal((await app.call('GET', '/user/code', { authorization: basic(app.login, 'a-new-password-of-length') })).status, 200)
    // Kept as a fingerprint only.
    const [row] = await db.from('smsgate_devices').select('password_sha256')
    assert.notInclude(JSON.stringify(row), 'a-new-password-of-length')
    // The device token is unchanged.
    assert.equal((await app.call('GET', '/settings')).status, 200)
  })
})
