import { test } from '@japa/runner'
import { readFileSync } from 'node:fs'
import db from '@adonisjs/lucid/services/db'
import app from '@adonisjs/core/services/app'
import { DataFolder } from '#core/data_folder/data_folder'
import { flushLogFile } from '#core/logging/log_file'
import { SignInAttempts } from '#modules/auth/services/sign_in_throttle'
import { UserService } from '#modules/auth/services/user_service'
import { useManualClock } from '#tests/helpers/clock'
import { TEST_PASSWORD, accountWithRole, testKeys, useTestKeys } from '#tests/helpers/callers'
import { Browser } from './browser.js'

const NEW_PASSWORD = 'a fresh and long passphrase'

/** A signed-in browser of its own for the account: each one is a separate session. */
async function signedIn(email: string, password = TEST_PASSWORD): Promise<Browser> {
  const browser = new Browser()
  await browser.signIn(email, password)
  return browser
}

const whoAmI = async (browser: Browser) => (await browser.call('GET', '/api/v1/auth/me')).status

/** An account of its own per test, so a changed password never leaks into another test. */
async function freshAccount(role: 'readonly' | 'operator' | 'superadmin', label: string) {
  const email = `${label}.${role}@own-account.test`
  await db.from('users').where('email', email).delete()
  return (await app.container.make(UserService)).create({ email, name: `Own ${label} ${role}`, password: TEST_PASSWORD, role }, null)
}

test.group('Own account: change own password', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await db.from('sessions').delete()
    await (await app.container.make(SignInAttempts)).clear()
  })

  for (const role of ['readonly', 'operator', 'superadmin'] as const) {
    test(`a ${role} changes its own password: its other sessions end, this one stays`, async ({ assert }) => {
      const account = await freshAccount(role, 'change')
      const here = await signedIn(account.email)
      const elsewhere = await signedIn(account.email)
      const someoneElse = await signedIn((await accountWithRole('operator')).email)

      const changed = await here.call('PUT', '/api/v1/auth/password', { currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD })
      assert.equal(changed.status, 200, JSON.stringify(changed.body))
      assert.deepEqual(changed.body, { endedSessions: 1 })

      assert.equal(await whoAmI(here), 200)
      assert.equal(await whoAmI(elsewhere), 401)
      assert.equal(await whoAmI(someoneElse), 200, "another account's session is not touched")

      const old = await new Browser().call('POST', '/api/v1/auth/login', { email: account.email, password: TEST_PASSWORD })
      assert.equal(old.status, 401)
      await new Browser().signIn(account.email, NEW_PASSWORD)
    })
  }

  test('a copy of the current session cookie stops working: the session gets a new id', async ({ assert }) => {
    const account = await freshAccount('operator', 'copy')
    const here = await signedIn(account.email)
    const stolen = here.copy()
    assert.equal(await whoAmI(stolen), 200)

    const changed = await here.call('PUT', '/api/v1/auth/password', { currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD })
    assert.equal(changed.status, 200, JSON.stringify(changed.body))
    assert.equal(await whoAmI(stolen), 401)
    assert.equal(await whoAmI(here), 200)
    // The renewed session keeps its CSRF secret: writes go on with the token the browser holds.
    const again = await here.call('PUT', '/api/v1/auth/password', { currentPassword: NEW_PASSWORD, newPassword: TEST_PASSWORD })
    assert.equal(again.status, 200, JSON.stringify(again.body))

    // The renewed session is still the account's: another browser can end it.
    const other = await signedIn(account.email)
    assert.deepEqual((await other.call('POST', '/api/v1/auth/logout-others')).body, { endedSessions: 1 })
    assert.equal(await whoAmI(here), 401)
  })

  test('a wrong current password is 403 WRONG_CURRENT_PASSWORD on currentPassword; nothing changes', async ({ assert }) => {
    const account = await freshAccount('readonly', 'wrong')
    const here = await signedIn(account.email)
    const elsewhere = await signedIn(account.email)

    const refused = await here.call('PUT', '/api/v1/auth/password', { currentPassword: 'not my password', newPassword: NEW_PASSWORD })
    assert.equal(refused.status, 403, JSON.stringify(refused.body))
    assert.equal(refused.body.error.code, 'WRONG_CURRENT_PASSWORD')
    assert.equal(refused.body.error.details[0].field, 'currentPassword')
    assert.isString(refused.body.error.requestId)
    assert.notInclude(JSON.stringify(refused.body), 'not my password')
    assert.notInclude(JSON.stringify(refused.body), NEW_PASSWORD)

    assert.equal(await whoAmI(here), 200, 'a wrong password does not sign the caller out')
    assert.equal(await whoAmI(elsewhere), 200)
    await new Browser().signIn(account.email, TEST_PASSWORD)
  })

  test('wrong current passwords count against the sign-in throttle: slowed, then refused with 429', async ({ assert }) => {
    const { clock, restore } = useManualClock('2026-07-01T10:00:00.000Z')
    try {
      const account = await freshAccount('operator', 'guess')
      const stolen = await signedIn(account.email)
      const guess = (password: string) =>
        stolen.call('PUT', '/api/v1/auth/password', { currentPassword: password, newPassword: NEW_PASSWORD }, { 'x-forwarded-for': '203.0.113.31' })
      for (let attempt = 0; attempt < 3; attempt++) assert.equal((await guess('a wrong guess')).status, 403)

      // Slowed as sign-in is: the 4th try must wait a second, even with the right password.
      const early = await guess(TEST_PASSWORD)
      assert.equal(early.status, 429, JSON.stringify(early.body))
      assert.equal(early.body.error.code, 'RATE_LIMITED')
      // The same counter: signing in to that address from there waits too.
      const signIn = await new Browser().call(
        'POST',
        '/api/v1/auth/login',
        { email: account.email, password: TEST_PASSWORD },
        { 'x-forwarded-for': '203.0.113.31' }
      )
      assert.equal(signIn.status, 429)

      let wait = 1
      for (let failures = 3; failures < 10; failures++) {
        await clock.advance(wait * 1000)
        assert.equal((await guess('a wrong guess')).status, 403)
        wait *= 2
      }
      await clock.advance(wait * 1000)
      const locked = await guess(TEST_PASSWORD)
      assert.equal(locked.status, 429, 'ten failures: refused for 15 minutes whatever the password')

      await clock.advance(15 * 60_000)
      const right = await guess(TEST_PASSWORD)
      assert.equal(right.status, 200, JSON.stringify(right.body))
    } finally {
      restore()
    }
  })

  test('the new password follows the account rules and must differ from the current one', async ({ assert }) => {
    const account = await freshAccount('operator', 'rules')
    const here = await signedIn(account.email)
    for (const [body, field] of [
      [{ currentPassword: TEST_PASSWORD, newPassword: 'short' }, 'newPassword'],
      [{ currentPassword: TEST_PASSWORD, newPassword: 'x'.repeat(129) }, 'newPassword'],
      [{ currentPassword: TEST_PASSWORD, newPassword: TEST_PASSWORD }, 'newPassword'],
      [{ newPassword: NEW_PASSWORD }, 'currentPassword'],
      [{ currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD, role: 'superadmin' }, 'role'],
    ] as const) {
      const refused = await here.call('PUT', '/api/v1/auth/password', body)
      assert.equal(refused.status, 400, JSON.stringify(refused.body))
      assert.equal(refused.body.error.code, 'VALIDATION_ERROR')
      assert.equal(refused.body.error.details[0].field, field, JSON.stringify(refused.body))
    }
    await new Browser().signIn(account.email, TEST_PASSWORD)
  })

  test('refused to API keys (even admin), to anonymous callers, and to a session without the XSRF token', async ({ assert }) => {
    const body = { currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD }
    const account = await freshAccount('superadmin', 'refusals')
    const keyed = await new Browser().call('PUT', '/api/v1/auth/password', body, { 'x-api-key': testKeys.admin })
    assert.equal(keyed.status, 403)
    assert.equal(keyed.body.error.code, 'FORBIDDEN_SCOPE')

    const anonymous = await new Browser().call('PUT', '/api/v1/auth/password', body)
    assert.equal(anonymous.status, 401)
    assert.equal(anonymous.body.error.code, 'MISSING_API_KEY')

    const here = await signedIn(account.email)
    here.jar.delete('XSRF-TOKEN')
    const forged = await here.call('PUT', '/api/v1/auth/password', body)
    assert.equal(forged.status, 403)
    assert.equal(forged.body.error.code, 'INVALID_CSRF_TOKEN')
    await new Browser().signIn(account.email, TEST_PASSWORD)
  })

  test('the Activity log says the password changed, with neither password nor e-mail address in it or in the log', async ({ assert }) => {
    const account = await freshAccount('operator', 'audit')
    const here = await signedIn(account.email)
    const since = (await db.from('activity_entries').max('id as id').first())?.id ?? 0
    const secret = 'an audited passphrase 7f3a'
    const changed = await here.call('PUT', '/api/v1/auth/password', { currentPassword: TEST_PASSWORD, newPassword: secret })
    assert.equal(changed.status, 200)

    const entries = await db.from('activity_entries').where('id', '>', since)
    const entry = entries.find((row) => /password/i.test(row.message))
    assert.exists(entry, JSON.stringify(entries))
    assert.include(entry.message, account.name)
    flushLogFile()
    const everything = JSON.stringify(entries) + readFileSync(DataFolder.current().logFile, 'utf8')
    assert.notInclude(everything, secret)
    assert.notInclude(everything, TEST_PASSWORD)
    assert.notInclude(everything, account.email)
  })
})

test.group('Own account: sign out other sessions', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await db.from('sessions').delete()
    await (await app.container.make(SignInAttempts)).clear()
  })

  test('ends every other session of the account, answers how many, keeps this one and other accounts', async ({ assert }) => {
    const account = await freshAccount('readonly', 'others')
    const here = await signedIn(account.email)
    const laptop = await signedIn(account.email)
    const phone = await signedIn(account.email)
    const colleague = await signedIn((await accountWithRole('operator')).email)

    const ended = await here.call('POST', '/api/v1/auth/logout-others')
    assert.equal(ended.status, 200, JSON.stringify(ended.body))
    assert.deepEqual(ended.body, { endedSessions: 2 })
    assert.equal(await whoAmI(here), 200)
    assert.equal(await whoAmI(laptop), 401)
    assert.equal(await whoAmI(phone), 401)
    assert.equal(await whoAmI(colleague), 200)

    // A signed-out browser signs in again as a new session.
    await laptop.signIn(account.email, TEST_PASSWORD)
    assert.equal(await whoAmI(laptop), 200)
    assert.deepEqual((await here.call('POST', '/api/v1/auth/logout-others')).body, { endedSessions: 1 })
    assert.deepEqual((await here.call('POST', '/api/v1/auth/logout-others')).body, { endedSessions: 0 })
  })

  test('a copy of the current cookie is signed out too; the password is unchanged', async ({ assert }) => {
    const account = await freshAccount('operator', 'stolen')
    const here = await signedIn(account.email)
    const stolen = here.copy()
    assert.equal((await here.call('POST', '/api/v1/auth/logout-others')).status, 200)
    assert.equal(await whoAmI(stolen), 401)
    assert.equal(await whoAmI(here), 200)
    const other = await signedIn(account.email, TEST_PASSWORD)
    assert.deepEqual((await other.call('POST', '/api/v1/auth/logout-others')).body, { endedSessions: 1 }, 'the renewed session is still the account’s')
    assert.equal(await whoAmI(here), 401)
  })

  test('refused to API keys, anonymous callers and a session without the XSRF token; a body is refused', async ({ assert }) => {
    const account = await freshAccount('superadmin', 'others-refusals')
    const keyed = await new Browser().call('POST', '/api/v1/auth/logout-others', undefined, { 'x-api-key': testKeys.admin })
    assert.equal(keyed.status, 403)
    assert.equal(keyed.body.error.code, 'FORBIDDEN_SCOPE')
    const anonymous = await new Browser().call('POST', '/api/v1/auth/logout-others')
    assert.equal(anonymous.status, 401)

    const here = await signedIn(account.email)
    const elsewhere = await signedIn(account.email)
    const withBody = await here.call('POST', '/api/v1/auth/logout-others', { everything: true })
    assert.equal(withBody.status, 400)
    here.jar.delete('XSRF-TOKEN')
    const forged = await here.call('POST', '/api/v1/auth/logout-others')
    assert.equal(forged.status, 403)
    assert.equal(forged.body.error.code, 'INVALID_CSRF_TOKEN')
    assert.equal(await whoAmI(elsewhere), 200)
  })
})
