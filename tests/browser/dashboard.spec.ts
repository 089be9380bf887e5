import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import type { Page } from 'playwright-core'
import { TEST_PASSWORD, accountWithRole, testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearDevices } from '#tests/helpers/devices'
import { clearMessaging } from '#tests/helpers/messages'
import { PhoneAgent } from '../../agent/src/phone_agent.js'
import { SimulatorDriver } from '../../agent/src/drivers/simulator.js'
import { browserForEachTest, gatewayUrl, PHONE, screenshot, screenshotsAtBothWidths, signInThroughThePage } from './browser.js'

/** Queues a message through the API as an integration would (no phone paired: it stays queued). */
async function queueMessage(to: string) {
  const response = await fetch(gatewayUrl('/api/v1/messages'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': testKeys.admin },
    body: JSON.stringify({ to, body: 'Your table is ready' }),
  })
  if (response.status !== 202) throw new Error(`POST /messages answered ${response.status}: ${await response.text()}`)
}

async function menuEntries(page: Page): Promise<string[]> {
  return (await page.getByRole('navigation', { name: 'Pages' }).getByRole('menuitem').allTextContents()).map((text) => text.trim())
}

test.group('Dashboard in a real browser', (group) => {
  let page: Page
  const agents: PhoneAgent[] = []

  const browsing = browserForEachTest(group)
  group.each.setup(async () => {
    page = browsing.page
    return async () => {
      for (const agent of agents.splice(0)) await agent.disconnect()
    }
  })

  test('a fresh gateway opens on the first-account form; field errors sit by their field; then the Overview with the messages of today; sign out', async ({ assert }) => {
    await db.from('users').delete()
    await clearDevices()
    await clearMessaging()
    await useTestKeys()
    await queueMessage('+33612345678')
    await queueMessage('+33612345679')
    await page.goto(gatewayUrl('/'))
    await page.getByRole('heading', { name: 'Create the first account' }).first().waitFor()
    assert.equal(new URL(page.url()).pathname, '/setup')
    await screenshotsAtBothWidths(page, 'setup')

    await page.getByLabel('Your name').fill('Owner')
    await page.getByLabel('E-mail address').fill('owner@example.test')
    await page.getByLabel('Password (10 characters or more)').fill('short')
    await page.getByRole('button', { name: 'Create the account' }).click()
    await page.getByRole('alert').getByText('Check the fields marked below.').waitFor()
    const feedback = page.locator('.n-form-item', { has: page.getByLabel('Password (10 characters or more)') }).locator('.n-form-item-feedback')
    assert.match(await feedback.innerText(), /at least 10 characters/)

    await page.getByLabel('Password (10 characters or more)').fill(TEST_PASSWORD)
    await page.getByRole('button', { name: 'Create the account' }).click()
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    assert.equal(new URL(page.url()).pathname, '/')
    await page.getByText('superadmin').first().waitFor()
    // The superadmin sees the backup tile (GET /backups/schedule is theirs).
    await page.getByTestId('next-backup').waitFor()
    assert.includeMembers(await menuEntries(page), ['Overview', 'Phones'])
    // Today's tiles count the two messages queued above (no phone: they wait), and the chart is drawn.
    const waiting = page.getByTestId('today-waiting').locator('.n-statistic-value')
    await waiting.getByText('2', { exact: true }).waitFor()
    assert.equal((await page.getByTestId('today-delivered').locator('.n-statistic-value').innerText()).trim(), '0')
    assert.equal((await page.getByTestId('today-failed').locator('.n-statistic-value').innerText()).trim(), '0')
    await page.getByRole('img', { name: 'Messages per day over the last 7 days, by status' }).waitFor()
    assert.equal(await page.locator('canvas').count(), 1)
    await page.getByText('30 days', { exact: true }).click()
    await page.getByRole('img', { name: 'Messages per day over the last 30 days, by status' }).waitFor()
    await page.getByText('7 days', { exact: true }).click()
    await page.getByRole('img', { name: 'Messages per day over the last 7 days, by status' }).waitFor()

    // A message queued meanwhile shows in the tiles live (the messages channel), no reload.
    await queueMessage('+33612345670')
    await waiting.getByText('3', { exact: true }).waitFor()
    await screenshotsAtBothWidths(page, 'overview')

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { name: 'Sign in' }).first().waitFor()
    // Signed out for real: the API no longer knows this browser.
    await page.goto(gatewayUrl('/phones'))
    await page.getByRole('heading', { name: 'Sign in' }).first().waitFor()
  })

  test('a wrong password shows the error; the right one then signs in, and a reload keeps the page', async ({ assert }) => {
    const account = await accountWithRole('superadmin')
    await signInThroughThePage(page, account.email, 'not the password at all')
    const problem = page.getByRole('alert')
    await problem.waitFor()
    assert.include(await problem.innerText(), 'wrong password')
    await screenshot(page, 'sign-in-error')

    await page.getByLabel('Password').fill(TEST_PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()

    await page.goto(gatewayUrl('/phones'))
    await page.getByRole('heading', { name: 'Phones', level: 1 }).waitFor()
    await page.reload()
    await page.getByRole('heading', { name: 'Phones', level: 1 }).waitFor()
  })

  test('an operator pairs a simulated phone with the code the Phones page shows, and sees it online without reloading', async ({ assert }) => {
    await clearDevices()
    const account = await accountWithRole('operator')
    await signInThroughThePage(page, account.email, TEST_PASSWORD)
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    // With no phone yet, the Overview's next step opens the Phones page with its pairing dialog.
    await page.getByRole('link', { name: 'Pair your first phone' }).click()
    await page.getByText('No phone paired yet.').waitFor()
    const code = (await page.getByTestId('pairing-code').innerText()).trim()
    assert.match(code, /^[A-Z0-9]{6,}$/)
    assert.equal((await page.getByTestId('simulator-command').innerText()).trim(), `node ace phone:simulate --gateway ${gatewayUrl('')} --pair ${code}`)
    await page.getByRole('img', { name: 'QR code of the pairing code' }).waitFor()
    await screenshot(page, 'pair-a-phone')

    // The simulated phone, in-process, with the code read off the page.
    const driver = new SimulatorDriver({
      sims: [
        { slot: 0, label: 'Work', operator: 'Orange' },
        { slot: 1, operator: 'Free' },
      ],
      battery: { level: 82, charging: false },
      signal: 3,
    })
    const paired = await PhoneAgent.pair(gatewayUrl(''), code, { name: 'Counter phone', sims: driver.sims() })
    const agent = new PhoneAgent({ gatewayUrl: gatewayUrl(''), credential: paired.credential, driver })
    agents.push(agent)
    await agent.connect()

    await page.getByText('“Counter phone” is paired and online.').waitFor()
    await page.getByRole('button', { name: 'Done' }).click()
    const card = page.locator('[data-phone="Counter phone"]')
    await card.getByText('Online', { exact: true }).waitFor()
    await page.getByText('1 of 1 online').waitFor()
    // Its battery and signal, live as the phone reports them.
    await agent.reportStatus()
    await card.getByText('82 %').waitFor()
    await card.getByText('3 of 4').waitFor()
    await screenshotsAtBothWidths(page, 'phones')

    // The phone goes away: the card shows it offline, live.
    await agent.disconnect()
    await card.getByText('Offline', { exact: true }).waitFor()
  })

  test('a read-only account sees no action button and only the pages its role may use', async ({ assert }) => {
    await clearDevices()
    const account = await accountWithRole('readonly')
    await signInThroughThePage(page, account.email, TEST_PASSWORD)
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    await page.getByTestId('phones-online').waitFor()
    // Its whole menu, page by page, is checked by roles_walk.spec.ts.
    assert.includeMembers(await menuEntries(page), ['Overview', 'Phones'])
    assert.equal(await page.getByTestId('next-backup').count(), 0)
    // No phone yet: the read-only account is pointed at the list, not asked to pair one.
    await page.getByRole('link', { name: 'See the phones' }).waitFor()
    assert.equal(await page.getByRole('link', { name: 'Pair your first phone' }).count(), 0)

    await page.goto(gatewayUrl('/phones?pair'))
    await page.getByRole('heading', { name: 'Phones', level: 1 }).waitFor()
    await page.getByText('An operator or a superadmin pairs phones').waitFor()
    assert.equal(await page.getByRole('button', { name: 'Pair a phone' }).count(), 0)
    assert.equal(await page.getByTestId('pairing-code').count(), 0)
  })

  test('a session ended elsewhere sends the next action to the sign-in form, then back to the page', async ({ assert }) => {
    const account = await accountWithRole('operator')
    // The page settled: both channels subscribed, and the list read again after the subscription.
    let subscriptions = 0
    let listReads = 0
    page.on('response', (response) => {
      if (response.url().endsWith('/__transmit/subscribe') && response.status() === 204) subscriptions++
      if (response.url().includes('/api/v1/devices?') && response.status() === 200) listReads++
    })
    await page.goto(gatewayUrl('/phones'))
    await page.getByRole('heading', { name: 'Sign in' }).first().waitFor()
    await page.getByLabel('E-mail address').fill(account.email)
    await page.getByLabel('Password').fill(TEST_PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('button', { name: 'Pair a phone' }).waitFor()
    while (subscriptions < 2 || listReads < 2) await page.waitForTimeout(20)

    await db.from('sessions').delete()
    await page.getByRole('button', { name: 'Pair a phone' }).click()
    await page.getByRole('heading', { name: 'Sign in' }).first().waitFor()
    assert.equal(new URL(page.url()).searchParams.get('next'), '/phones')

    await page.getByLabel('E-mail address').fill(account.email)
    await page.getByLabel('Password').fill(TEST_PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Phones', level: 1 }).waitFor()
  })

  test('at 360 px the menu folds into a drawer and still leads to every page', async ({ assert }) => {
    const account = await accountWithRole('operator')
    await page.setViewportSize(PHONE)
    await signInThroughThePage(page, account.email, TEST_PASSWORD)
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    assert.equal(await page.getByRole('navigation', { name: 'Pages' }).count(), 0)
    await page.getByRole('button', { name: 'Menu' }).click()
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Phones', exact: true }).click()
    await page.getByRole('heading', { name: 'Phones', level: 1 }).waitFor()
    assert.equal(new URL(page.url()).pathname, '/phones')
  })
})
