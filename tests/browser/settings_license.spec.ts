import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import type { Page } from 'playwright-core'
import { TEST_PASSWORD, accountWithRole, testKeys, useTestKeys } from '#tests/helpers/callers'
import { SettingsStore } from '#core/settings/settings_store'
import { clearDevices } from '#tests/helpers/devices'
import { browserForEachTest, DESKTOP, gatewayUrl, screenshotsAtBothWidths, signInToOverview } from './browser.js'
import { defaultSettings, feedbackBeside, licenseKeyFromAnotherMasterKey, menuEntries, noLicenseKey, pairedPhone, settingsInForce } from './helpers_settings_license.js'

const SMTP_PASSWORD = 'smtp-Pa55-never-shown'
const LICENSE_KEY = 'GOOD-7c1e5b2d4a6f8e0c-full-license-key'

test.group('Settings and License pages in a real browser', (group) => {
  let page: Page

  const browsing = browserForEachTest(group)
  // Later suites of the same run find the gateway as they would without this file.
  group.setup(() => async () => {
    await defaultSettings()
    await noLicenseKey()
  })
  group.each.setup(async () => {
    await useTestKeys()
    await defaultSettings()
    await noLicenseKey()
    page = browsing.page
  })

  test('Sending: a bad time zone and a bad prefix rule are marked beside their inputs; fixed, they are saved and read back after a reload', async ({ assert }) => {
    await clearDevices()
    const phoneId = await pairedPhone('Shop phone', [
      { slot: 0, label: 'Work', operator: 'Orange' },
      { slot: 1, operator: 'Free' },
    ])
    const owner = await accountWithRole('superadmin')
    await signInToOverview(page, owner.email, TEST_PASSWORD)
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('menuitem', { name: 'Settings' }).click()
    await page.getByLabel('Gateway name').waitFor()
    assert.equal(new URL(page.url()).pathname, '/settings/general')

    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Sending' }).click()
    await page.getByLabel('Platform time zone').waitFor()
    assert.equal(new URL(page.url()).pathname, '/settings/sending')
    assert.equal(await page.getByLabel('Platform time zone').inputValue(), 'UTC')
    assert.equal(await page.getByLabel('Attempts per message').inputValue(), '4')

    await page.getByLabel('Platform time zone').fill('Mars/Olympus_Mons')
    await page.getByLabel('Attempts per message').fill('6')
    await page.getByRole('button', { name: 'Add a rule' }).click()
    const rule = page.getByRole('group', { name: 'Rule 1' })
    await rule.getByLabel('Numbers starting with').fill('33')
    await rule.getByLabel('SIM').selectOption({ label: 'SIM 2' })
    // Enter submits the form, as everywhere.
    await page.getByLabel('Platform time zone').press('Enter')
    await page.getByRole('alert').getByText('Check the fields marked below.').waitFor()
    assert.match(await feedbackBeside(page, 'Platform time zone').innerText(), /IANA time zone/)
    assert.match(await rule.locator('.error').innerText(), /prefixRules\.0\.prefix/)
    assert.equal(await feedbackBeside(page, 'Attempts per message').count(), 0)
    // Nothing of a refused change is kept.
    assert.equal((await settingsInForce()).sending.timezone, 'UTC')

    await page.getByLabel('Platform time zone').fill('Europe/Paris')
    await rule.getByLabel('Numbers starting with').fill('+33')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').getByText('Saved.').waitFor()
    assert.equal(await page.getByText('Check the fields marked below.').count(), 0)
    const sending = (await settingsInForce()).sending
    assert.equal(sending.timezone, 'Europe/Paris')
    assert.equal(sending.maxAttempts, 6)
    assert.deepEqual(sending.prefixRules, [{ prefix: '+33', deviceId: phoneId, simSlot: 1 }])
    assert.equal(sending.routingMode, 'round_robin', 'a field left alone is not sent')

    await page.reload()
    await page.getByLabel('Platform time zone').waitFor()
    assert.equal(await page.getByLabel('Platform time zone').inputValue(), 'Europe/Paris')
    assert.equal(await page.getByLabel('Attempts per message').inputValue(), '6')
    const saved = page.getByRole('group', { name: 'Rule 1' })
    assert.equal(await saved.getByLabel('Numbers starting with').inputValue(), '+33')
    assert.equal(await saved.getByLabel('go out through').inputValue(), phoneId)
    assert.equal(await saved.getByLabel('SIM').inputValue(), '1')
    await screenshotsAtBothWidths(page, 'settings-sending')
  })

  test('Notifications: a bad address is marked beside its list; the SMTP password saved shows as "set", never its value, and can be cleared', async ({ assert }) => {
    const owner = await accountWithRole('superadmin')
    await signInToOverview(page, owner.email, TEST_PASSWORD)
    await page.goto(gatewayUrl('/settings/notifications'))
    await page.getByLabel("Administrators' e-mail addresses").waitFor()
    assert.equal(await page.getByTestId('smtp-password-state').innerText(), 'Not set')

    await page.getByLabel("Administrators' e-mail addresses").fill('ops@example.com\nnot-an-address')
    await page.getByLabel('SMTP server').fill('smtp.example.com')
    await page.getByLabel('SMTP password').fill(SMTP_PASSWORD)
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('alert').getByText('Check the fields marked below.').waitFor()
    assert.match(await feedbackBeside(page, "Administrators' e-mail addresses").innerText(), /email/i)
    assert.equal(await feedbackBeside(page, 'SMTP server').count(), 0)

    await page.getByLabel("Administrators' e-mail addresses").fill('ops@example.com\n\nowner@example.com')
    // Naive UI draws its own dot over a hidden radio input: the operator clicks the label.
    await page.getByText('TLS: encrypted from the start').click()
    assert.isTrue(await page.getByRole('radio', { name: /^TLS:/ }).isChecked())
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').getByText('Saved.').waitFor()
    const notifications = (await settingsInForce()).notifications
    assert.deepEqual(notifications.adminEmails, ['ops@example.com', 'owner@example.com'])
    assert.equal(notifications.smtpHost, 'smtp.example.com')
    assert.equal(notifications.smtpSecurity, 'tls')
    assert.equal(notifications.smtpPassword, '********')

    await page.reload()
    await page.getByLabel('SMTP password').waitFor()
    assert.equal(await page.getByTestId('smtp-password-state').innerText(), 'Set')
    assert.equal(await page.getByLabel('SMTP password').inputValue(), '')
    assert.notInclude(await page.content(), SMTP_PASSWORD)
    assert.notInclude(await page.content(), '********')
    assert.equal(await page.getByLabel('SMTP server').inputValue(), 'smtp.example.com')
    await screenshotsAtBothWidths(page, 'settings-notifications')

    // Saving another field keeps the stored password; clearing it forgets it.
    await page.getByLabel('SMTP port').fill('465')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').getByText('Saved.').waitFor()
    assert.equal((await settingsInForce()).notifications.smtpPassword, '********')
    await page.getByLabel('Clear the stored password').check()
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByTestId('smtp-password-state').getByText('Not set').waitFor()
    assert.isNull((await settingsInForce()).notifications.smtpPassword)
  })

  test('General and Reception: a text option is switched with the keyboard; an unknown calling code is refused beside the field, a good one saved', async ({ assert }) => {
    const owner = await accountWithRole('superadmin')
    await signInToOverview(page, owner.email, TEST_PASSWORD)
    await page.goto(gatewayUrl('/settings/general'))
    await page.getByLabel('Uppercase everything').focus()
    await page.keyboard.press('Space')
    assert.isTrue(await page.getByLabel('Uppercase everything').isChecked())
    await page.getByLabel('Gateway name').fill('Shop gateway')
    await page.getByLabel('Gateway name').press('Enter')
    await page.getByRole('status').getByText('Saved.').waitFor()
    const general = (await settingsInForce()).general
    assert.equal(general.gatewayName, 'Shop gateway')
    assert.isTrue(general.uppercase)
    assert.isFalse(general.stripDiacritics)

    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Reception' }).click()
    await page.goto(gatewayUrl('/settings/reception'))
    await page.getByLabel('Local number prefix').fill('+999')
    await page.getByLabel('Local number prefix').press('Enter')
    await page.getByRole('alert').getByText('Check the fields marked below.').waitFor()
    assert.match(await feedbackBeside(page, 'Local number prefix').innerText(), /calling code/)
    await page.getByLabel('Local number prefix').fill('+33')
    await page.getByLabel('Local number prefix').press('Enter')
    await page.getByRole('status').getByText('Saved.').waitFor()
    assert.equal((await settingsInForce()).reception.localPrefix, '+33')
  })

  test('an operator sees the settings in force without any input or Save, and no License page; a read-only account sees neither page', async ({ assert }) => {
    // Values set beforehand, as a superadmin would have.
    await (await app.container.make(SettingsStore)).update({
      sending: { timezone: 'America/New_York', simPerMinuteLimit: 20 },
      notifications: { smtpPassword: SMTP_PASSWORD },
    })

    const operator = await accountWithRole('operator')
    await signInToOverview(page, operator.email, TEST_PASSWORD)
    const menu = await menuEntries(page)
    assert.include(menu, 'Settings')
    assert.notInclude(menu, 'License')
    await page.goto(gatewayUrl('/settings/sending'))
    await page.getByText('America/New_York', { exact: true }).waitFor()
    await page.getByText('20 per minute').waitFor()
    await page.getByText('Only a superadmin changes settings').waitFor()
    assert.equal(await page.getByRole('textbox').count(), 0)
    assert.equal(await page.getByRole('spinbutton').count(), 0)
    assert.equal(await page.getByRole('radio').count(), 0)
    assert.equal(await page.getByRole('button', { name: 'Save' }).count(), 0)
    assert.equal(await page.getByRole('button', { name: 'Add a rule' }).count(), 0)
    await screenshotsAtBothWidths(page, 'settings-read-only')
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Notifications' }).click()
    await page.getByText('SMTP password', { exact: true }).waitFor()
    assert.equal(await page.locator('dd', { hasText: /^\s*Set/ }).count(), 1)
    assert.notInclude(await page.content(), SMTP_PASSWORD)
    assert.equal(await page.getByRole('checkbox').count(), 0)
    assert.equal(await page.getByRole('button', { name: 'Save' }).count(), 0)
    // The backup schedule is shown, and changed on the Backups page only.
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Backup' }).click()
    await page.getByText('Every day at 03:00 (platform time zone)').waitFor()
    assert.equal(new URL(page.url()).pathname, '/settings/backup')
    await page.goto(gatewayUrl('/license'))
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()

    const reader = await accountWithRole('readonly')
    const readerPage = await browsing.browser.newContext({ viewport: DESKTOP }).then((fresh) => fresh.newPage())
    await signInToOverview(readerPage, reader.email, TEST_PASSWORD)
    const readerMenu = await menuEntries(readerPage)
    assert.notInclude(readerMenu, 'Settings')
    assert.notInclude(readerMenu, 'License')
    await readerPage.goto(gatewayUrl('/settings/sending'))
    await readerPage.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    assert.equal(new URL(readerPage.url()).pathname, '/')
    await readerPage.context().close()
  })

  test('License: the page shows the mode, state and what it allows; a bad key is refused beside its field; a good one shows only its first four characters', async ({ assert }) => {
    const owner = await accountWithRole('superadmin')
    await signInToOverview(page, owner.email, TEST_PASSWORD)
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('menuitem', { name: 'License' }).click()
    await page.getByTestId('license-mode').waitFor()
    const status = (await (await fetch(gatewayUrl('/api/v1/license'), { headers: { 'x-api-key': testKeys.admin } })).json()) as { mode: string }
    assert.equal(await page.getByTestId('license-mode').innerText(), status.mode === 'community' ? 'Community (no license server)' : 'Licensed')
    assert.equal(await page.getByTestId('license-state').innerText(), 'Valid')
    assert.equal(await page.getByTestId('license-key').innerText(), 'No key entered')
    assert.match(await page.getByTestId('license-allows').innerText(), /everything works/i)
    await page.getByRole('heading', { name: 'Enter the key' }).waitFor()

    await page.getByLabel('License key').fill('short')
    await page.getByLabel('License key').press('Enter')
    await page.getByRole('alert').getByText('Check the fields marked below.').waitFor()
    assert.match(await feedbackBeside(page, 'License key').innerText(), /at least 8 characters/)
    await page.getByLabel('License key').fill('has spaces in it')
    await page.getByRole('button', { name: 'Save the key' }).click()
    await feedbackBeside(page, 'License key').getByText(/format/i).waitFor()
    assert.equal(await page.getByTestId('license-key').innerText(), 'No key entered')

    await page.getByLabel('License key').fill(LICENSE_KEY)
    await page.getByRole('button', { name: 'Save the key' }).click()
    await page.getByRole('status').getByText('Key saved.').waitFor()
    assert.match(await page.getByTestId('license-key').innerText(), /starts with GOOD…/)
    assert.equal(await page.getByLabel('License key').inputValue(), '')
    await page.reload()
    await page.getByRole('heading', { name: 'Replace the key' }).waitFor()
    assert.match(await page.getByTestId('license-key').innerText(), /starts with GOOD…/)
    assert.notInclude(await page.content(), LICENSE_KEY)
    await screenshotsAtBothWidths(page, 'license')
  })

  test('License: a key the master key cannot open any longer is said to need entering again, and entering it repairs it', async ({ assert }) => {
    await licenseKeyFromAnotherMasterKey('OLDK')
    const owner = await accountWithRole('superadmin')
    await signInToOverview(page, owner.email, TEST_PASSWORD)
    await page.goto(gatewayUrl('/license'))
    await page.getByTestId('license-key').getByText(/OLDK…\) must be entered again/).waitFor()
    await page.getByRole('heading', { name: 'Enter the key' }).waitFor()
    await page.getByLabel('License key').fill(LICENSE_KEY)
    await page.getByLabel('License key').press('Enter')
    await page.getByRole('status').getByText('Key saved.').waitFor()
    assert.match(await page.getByTestId('license-key').innerText(), /^Entered, starts with GOOD…/)
  })
})
