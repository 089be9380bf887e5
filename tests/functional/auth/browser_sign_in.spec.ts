import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import app from '@adonisjs/core/services/app'
import { SignInAttempts } from '#modules/auth/services/sign_in_throttle'
import { useManualClock } from '#tests/helpers/clock'
import { TEST_PASSWORD, accountWithRole } from '#tests/helpers/callers'
import { Browser } from './browser.js'

test.group('Sign-in as a browser does it (cookie jar, echoed XSRF-TOKEN)', (group) => {
  group.each.setup(async () => {
    await db.from('sessions').delete()
    await (await app.container.make(SignInAttempts)).clear()
  })

  test('a mistyped password can be corrected: later tries are judged on the password, never 403', async ({ assert }) => {
    const { clock, restore } = useManualClock('2026-07-01T10:00:00.000Z')
    try {
      const account = await accountWithRole('operator')
      const browser = new Browser()
      assert.equal((await browser.call('GET', '/api/v1/auth/me')).status, 401)

      for (let attempt = 0; attempt < 3; attempt++) {
        const wrong = await browser.call('POST', '/api/v1/auth/login', { email: account.email, password: 'not the password' })
        assert.equal(wrong.status, 401, `attempt ${attempt + 1}: ${JSON.stringify(wrong.body)}`)
        assert.equal(wrong.body.error.code, 'INVALID_CREDENTIALS')
      }
      // Three failures: the next try waits a second (the sign-in throttle), then goes through.
      await clock.advance(1000)
      const right = await browser.call('POST', '/api/v1/auth/login', { email: account.email, password: TEST_PASSWORD })
      assert.equal(right.status, 200, JSON.stringify(right.body))

      // Signed in: the jar's session cookie and XSRF token work for reads and writes.
      const me = await browser.call('GET', '/api/v1/auth/me')
      assert.equal(me.status, 200)
      assert.equal(me.body.user.email, account.email)
      assert.equal((await browser.call('POST', '/api/v1/auth/logout')).status, 204)

      // Signed out, the same browser (still holding its session cookie) signs in again.
      const wrongAgain = await browser.call('POST', '/api/v1/auth/login', { email: account.email, password: 'not the password' })
      assert.equal(wrongAgain.status, 401, JSON.stringify(wrongAgain.body))
      const again = await browser.call('POST', '/api/v1/auth/login', { email: account.email, password: TEST_PASSWORD })
      assert.equal(again.status, 200, JSON.stringify(again.body))
    } finally {
      restore()
    }
  })

  test('a browser still holding an ended session signs in again', async ({ assert }) => {
    const account = await accountWithRole('readonly')
    const browser = new Browser()
    assert.equal((await browser.call('POST', '/api/v1/auth/login', { email: account.email, password: TEST_PASSWORD })).status, 200)
    // The session ends on the server side (expired, or the account's sessions were ended); the
    // browser goes straight to the sign-in form with its old cookies.
    await db.from('sessions').delete()
    const wrong = await browser.call('POST', '/api/v1/auth/login', { email: account.email, password: 'not the password' })
    assert.equal(wrong.status, 401, JSON.stringify(wrong.body))
    const right = await browser.call('POST', '/api/v1/auth/login', { email: account.email, password: TEST_PASSWORD })
    assert.equal(right.status, 200, JSON.stringify(right.body))
    assert.equal((await browser.call('GET', '/api/v1/auth/me')).status, 200)
  })

  test('a signed-in session still needs the echoed token, on sign-in too', async ({ assert }) => {
    const account = await accountWithRole('operator')
    const browser = new Browser()
    assert.equal((await browser.call('POST', '/api/v1/auth/login', { email: account.email, password: TEST_PASSWORD })).status, 200)
    // A forged request carries the cookies but cannot read the XSRF-TOKEN cookie to echo it.
    const forged = await fetch(`http://127.0.0.1:${process.env.PORT}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'cookie': [...browser.jar].map(([name, value]) => `${name}=${value}`).join('; ') },
      body: JSON.stringify({ email: account.email, password: TEST_PASSWORD }),
    })
    assert.equal(forged.status, 403)
    assert.equal(((await forged.json()) as { error: { code: string } }).error.code, 'INVALID_CSRF_TOKEN')
    assert.equal((await browser.call('POST', '/api/v1/auth/login', { email: account.email, password: TEST_PASSWORD })).status, 200)
  })

  test('failed sign-ins from a fresh browser still leave no session rows', async ({ assert }) => {
    const account = await accountWithRole('operator')
    const browser = new Browser()
    for (let attempt = 0; attempt < 2; attempt++) {
      assert.equal((await browser.call('POST', '/api/v1/auth/login', { email: account.email, password: 'not the password' })).status, 401)
      // No cookie at all: a session cookie would name a session that does not exist.
      assert.equal(browser.jar.size, 0)
    }
    assert.equal(Number((await db.from('sessions').count('* as total').first()).total), 0)
  })
})
