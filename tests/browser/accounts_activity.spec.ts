import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import app from '@adonisjs/core/services/app'
import type { Page } from 'playwright-core'
import { UserService } from '#modules/auth/services/user_service'
import User from '#modules/auth/models/user'
import { TEST_PASSWORD, accountWithRole } from '#tests/helpers/callers'
import { browserForEachTest, DESKTOP, gatewayUrl, screenshotsAtBothWidths, signInToOverview } from './browser.js'

async function menuEntries(page: Page): Promise<string[]> {
  return (await page.getByRole('navigation', { name: 'Pages' }).getByRole('menuitem').allTextContents()).map((text) => text.trim())
}

/** The message under a form field (its API error), found from the field's label. */
function feedbackOf(page: Page, label: string) {
  return page.locator('.n-form-item', { has: page.getByLabel(label, { exact: true }) }).locator('.n-form-item-feedback')
}

/** An account of its own, so changing its password leaves the shared test accounts alone. */
async function freshAccount(email: string, name: string, role: 'operator' | 'readonly' | 'superadmin') {
  await User.query().where('email', email).delete()
  return (await app.container.make(UserService)).create({ email, name, password: TEST_PASSWORD, role }, null)
}

test.group('Accounts, own account, Activity and technical log in a real browser', (group) => {
  let page: Page

  const browsing = browserForEachTest(group)
  group.each.setup(async () => {
    page = browsing.page
  })

  test('an operator changes their own password (a wrong current one first), signs out their other sessions, and signs in with the new password', async ({ assert }) => {
    const account = await freshAccount('own-account@gateway.test', 'Counter clerk', 'operator')
    const newPassword = 'a brand new long passphrase'
    // The same person in another browser, signed in beforehand.
    const elsewhere = await browsing.browser.newContext({ viewport: DESKTOP })
    try {
      const otherPage = await elsewhere.newPage()
      await signInToOverview(otherPage, account.email, TEST_PASSWORD)
      await signInToOverview(page, account.email, TEST_PASSWORD)

      // The signed-in name in the header leads to the own account page.
      await page.getByRole('link', { name: 'Your account: Counter clerk operator' }).click()
      await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor()
      assert.equal(new URL(page.url()).pathname, '/account')
      await page.getByText('own-account@gateway.test').waitFor()

      await page.getByLabel('Current password', { exact: true }).fill('not my password at all')
      await page.getByLabel('New password (10 to 128 characters)').fill(newPassword)
      await page.getByLabel('New password (10 to 128 characters)').press('Enter')
      await feedbackOf(page, 'Current password').getByText('The current password is wrong').waitFor()
      assert.equal(await page.getByText('Your password is changed').count(), 0)

      await page.getByLabel('Current password', { exact: true }).fill(TEST_PASSWORD)
      await page.getByRole('button', { name: 'Change password' }).click()
      await page.getByText('Your password is changed. 1 other session was signed out.').waitFor()
      assert.equal(await page.getByLabel('Current password', { exact: true }).inputValue(), '')
      await screenshotsAtBothWidths(page, 'account')

      // The other browser was signed out: its next page is the sign-in form; the new password lets it in.
      await otherPage.goto(gatewayUrl('/phones'))
      await otherPage.getByRole('heading', { name: 'Sign in' }).first().waitFor()
      await otherPage.getByLabel('E-mail address').fill(account.email)
      await otherPage.getByLabel('Password').fill(TEST_PASSWORD)
      await otherPage.getByRole('button', { name: 'Sign in' }).click()
      await otherPage.getByRole('alert').waitFor()
      await otherPage.getByLabel('Password').fill(newPassword)
      await otherPage.getByRole('button', { name: 'Sign in' }).click()
      await otherPage.getByRole('heading', { name: 'Phones', level: 1 }).waitFor()

      // "Sign out my other sessions" ends the other browser's session again; this one stays.
      await page.getByRole('button', { name: 'Sign out my other sessions' }).click()
      await page.getByText('1 other session was signed out.', { exact: true }).waitFor()
      await otherPage.goto(gatewayUrl('/'))
      await otherPage.getByRole('heading', { name: 'Sign in' }).first().waitFor()
      await page.goto(gatewayUrl('/phones'))
      await page.getByRole('heading', { name: 'Phones', level: 1 }).waitFor()

      // Signed out here too, the new password signs in again.
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByRole('heading', { name: 'Sign in' }).first().waitFor()
      await signInToOverview(page, account.email, newPassword)
    } finally {
      await elsewhere.close()
    }
  })

  test('a superadmin creates an operator, changes its role, sets its password and removes it; the last superadmin stays; the Activity log shows and filters it; the technical log shows lines', async ({ assert }) => {
    await User.query().where('role', 'superadmin').delete()
    await User.query().where('email', 'desk@example.test').delete()
    await db.from('activity_entries').where('message', 'like', '%Desk clerk%').delete()
    const owner = await accountWithRole('superadmin')
    await signInToOverview(page, owner.email, TEST_PASSWORD)
    assert.includeMembers(await menuEntries(page), ['Accounts', 'Activity', 'Technical log', 'Your account'])

    await page.getByRole('navigation', { name: 'Pages' }).getByText('Accounts').click()
    await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor()
    await page.locator(`[data-account="${owner.name}"]`).waitFor()

    // Create: a short password is refused beside its field, then the account is made.
    await page.getByRole('button', { name: 'New account' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByLabel('Name').fill('Desk clerk')
    await dialog.getByLabel('E-mail address').fill('desk@example.test')
    await dialog.getByLabel('Password (10 to 128 characters)').fill('short')
    await dialog.getByText('Operator', { exact: true }).click()
    await dialog.getByRole('button', { name: 'Create the account' }).click()
    await feedbackOf(page, 'Password (10 to 128 characters)').getByText(/at least 10 characters/).waitFor()
    await dialog.getByLabel('Password (10 to 128 characters)').fill('a long first password')
    await dialog.getByLabel('Password (10 to 128 characters)').press('Enter')
    const row = page.locator('[data-account="Desk clerk"]')
    await row.getByText('Operator', { exact: true }).waitFor()
    await row.getByText('desk@example.test').waitFor()

    // Change its role.
    await row.getByRole('button', { name: 'Change' }).click()
    await page.getByRole('dialog').getByText('Read-only', { exact: true }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click()
    await row.getByText('Read-only', { exact: true }).waitFor()

    // Set its password: the new one signs in, the old one no longer does.
    await row.getByRole('button', { name: 'Set password' }).click()
    await page.getByRole('dialog').getByLabel('New password (10 to 128 characters)').fill('a long second password')
    await page.getByRole('dialog').getByRole('button', { name: 'Set the password' }).click()
    await page.getByText('Desk clerk: new password set; their sessions ended.').waitFor()
    const signInWith = async (password: string) =>
      (await fetch(gatewayUrl('/api/v1/auth/login'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'desk@example.test', password }) })).status
    assert.equal(await signInWith('a long second password'), 200)
    assert.equal(await signInWith('a long first password'), 401)

    // Remove it, after confirming.
    await row.getByRole('button', { name: 'Remove' }).click()
    await page.getByRole('button', { name: 'Remove', exact: true }).last().click()
    await page.getByText('Desk clerk: removed; their sessions ended.').waitFor()
    await row.waitFor({ state: 'detached' })

    // The last superadmin: Remove is not offered, the reason stands in its place.
    const ownRow = page.locator(`[data-account="${owner.name}"]`)
    await ownRow.getByText('The last superadmin: make another account superadmin first.').waitFor()
    // Asked anyway, from this session (another tab, a script), the gateway refuses it: the
    // technical log below shows that refusal.
    const xsrfThenDelete =
      `(async () => { const xsrf = decodeURIComponent((document.cookie.match(/XSRF-TOKEN=([^;]+)/) || [])[1] || ''); ` +
      `return (await fetch('/api/v1/users/${owner.id}', { method: 'DELETE', headers: { 'X-XSRF-TOKEN': xsrf } })).status })()`
    assert.equal(Number(await page.evaluate(xsrfThenDelete)), 409)
    assert.equal(await ownRow.getByRole('button', { name: 'Remove' }).count(), 0)
    await screenshotsAtBothWidths(page, 'accounts')

    // The Activity log tells it in words, newest first, and filters it.
    await page.getByRole('navigation', { name: 'Pages' }).getByText('Activity').click()
    await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor()
    const entries = page.getByRole('list', { name: 'Activity' }).getByRole('listitem')
    await page.getByLabel('Words in the message').fill('Desk clerk')
    await page.getByLabel('Words in the message').press('Enter')
    // The unfiltered list is longer: wait for the filtered answer to replace it.
    await entries.nth(4).waitFor({ state: 'detached' })
    await entries.nth(3).waitFor()
    const messages = async () => (await entries.locator('.message').allTextContents()).map((text) => text.trim())
    assert.deepEqual(await messages(), [
      `${owner.name} deleted account Desk clerk (readonly)`,
      `${owner.name} changed account Desk clerk: password set`,
      `${owner.name} changed account Desk clerk: role operator → readonly`,
      `${owner.name} created account Desk clerk with role operator`,
    ])
    // Details open on demand.
    await entries.first().getByText('Details').click()
    await entries.first().getByText('"byUserId"').waitFor()
    await screenshotsAtBothWidths(page, 'activity')

    // Each entry names who did it.
    await entries.first().getByText(`by ${owner.name} (account)`).waitFor()

    // Other filters: a level with none of these, a kind, who did it, a day range.
    await page.getByLabel('Level').selectOption('error')
    await page.getByText('Nothing matches these filters.').waitFor()
    await page.getByLabel('Level').selectOption('')
    await page.getByLabel('About').selectOption({ label: 'Phones paired and unpaired' })
    await page.getByText('Nothing matches these filters.').waitFor()
    await page.getByLabel('About').selectOption({ label: 'Dashboard accounts' })
    await entries.nth(3).waitFor()
    await page.locator('select[name="actor"]').selectOption({ label: 'The gateway itself' })
    await page.getByText('Nothing matches these filters.').waitFor()
    await page.locator('select[name="actor"]').selectOption({ label: `${owner.name} (account)` })
    await entries.nth(3).waitFor()
    const today = new Date()
    const day = (offset: number) => {
      const date = new Date(today.getFullYear(), today.getMonth(), today.getDate() + offset)
      return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`
    }
    await page.getByLabel('From', { exact: true }).fill(day(1))
    await page.getByText('Nothing matches these filters.').waitFor()
    await page.getByLabel('From', { exact: true }).fill(day(0))
    await page.getByLabel('To', { exact: true }).fill(day(0))
    await entries.nth(3).waitFor()
    assert.lengthOf(await messages(), 4)

    // The technical log: the gateway's own lines, the refused removal among them.
    await page.getByRole('navigation', { name: 'Pages' }).getByText('Technical log').click()
    await page.getByRole('heading', { name: 'Technical log', level: 1 }).waitFor()
    const lines = page.getByRole('list', { name: 'Log lines' }).getByRole('listitem')
    await lines.filter({ hasText: `DELETE /api/v1/users/${owner.id} 409` }).first().waitFor()
    assert.isAbove(await lines.count(), 5)
    // Filtered by words: only the lines of the refused removal (a request line is logged as info).
    await page.getByLabel('Words in the line').fill(`DELETE /api/v1/users/${owner.id} `)
    await page.getByLabel('Words in the line').press('Enter')
    const refusedRemoval = `DELETE /api/v1/users/${owner.id} 409`
    // Every line shown is then one of the refusal: the others are gone, not just scrolled away.
    await page.waitForFunction(
      `(() => { const shown = Array.from(document.querySelectorAll('ol[aria-label="Log lines"] li')); ` +
        `return shown.length > 0 && shown.every((line) => line.textContent.includes(${JSON.stringify(refusedRemoval)})) })()`
    )
    const shown = await lines.allInnerTexts()
    assert.isAbove(shown.length, 0)
    for (const text of shown) assert.include(text, refusedRemoval)
    await page.getByLabel('Level').selectOption('warn')
    await page.getByText(/No (matching )?line/).waitFor()
    await page.getByLabel('Level').selectOption('')
    await lines.first().waitFor()
    await screenshotsAtBothWidths(page, 'technical-log')
  })

  for (const [role, named] of [['operator', 'an operator'], ['readonly', 'a read-only']] as const) {
    test(`${named} account has no Accounts or technical log page: neither in the menu nor by its address`, async ({ assert }) => {
      const account = await accountWithRole(role)
      await signInToOverview(page, account.email, TEST_PASSWORD)
      const menu = await menuEntries(page)
      assert.includeMembers(menu, ['Activity', 'Your account'])
      assert.notInclude(menu, 'Accounts')
      assert.notInclude(menu, 'Technical log')
      for (const path of ['/accounts', '/technical-log']) {
        await page.goto(gatewayUrl(path))
        await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
        assert.equal(new URL(page.url()).pathname, '/')
      }
      // Its own account page is there, with the password form.
      await page.goto(gatewayUrl('/account'))
      await page.getByRole('button', { name: 'Change password' }).waitFor()
      // The Activity log reads, and offers no action.
      await page.goto(gatewayUrl('/activity'))
      await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor()
      assert.equal(await page.getByRole('button', { name: 'Remove' }).count(), 0)
    })
  }
})
