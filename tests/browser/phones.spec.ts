import { test } from '@japa/runner'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { useTestKeys } from '#tests/helpers/callers'
import { clearDevices } from '#tests/helpers/devices'
import { PhoneAgent } from '../../agent/src/phone_agent.js'
import { SimulatorDriver } from '../../agent/src/drivers/simulator.js'
import { DESKTOP, gatewayUrl, launchChromium, screenshotsAtBothWidths, signInAs } from './browser.js'
import { adminApi, openFromMenu } from './helpers_data_pages.js'
import { FakeSmsgateApp } from '../functional/smsgate/support/fake_smsgate_app.js'

/** Pairs a simulated phone through the API (as the agent does), connected unless told otherwise. */
async function simulatedPhone(name: string, connect = true) {
  const code = (await adminApi('POST', '/devices/pairing-codes')).body.code as string
  const driver = new SimulatorDriver({ sims: [{ slot: 0, label: 'Work', operator: 'Orange' }], battery: { level: 64, charging: true }, signal: 2 })
  const paired = await PhoneAgent.pair(gatewayUrl(''), code, { name, sims: driver.sims() })
  const agent = new PhoneAgent({ gatewayUrl: gatewayUrl(''), credential: paired.credential, driver })
  if (connect) await agent.connect()
  return { agent, id: String(paired.device.id) }
}

test.group('Phones page: settings and unpairing in a real browser', (group) => {
  let browser: Browser
  const contexts: BrowserContext[] = []
  const agents: PhoneAgent[] = []
  const apps: FakeSmsgateApp[] = []
  const newPage = async (): Promise<Page> => {
    const context = await browser.newContext({ viewport: DESKTOP })
    contexts.push(context)
    return context.newPage()
  }

  group.setup(async () => {
    await useTestKeys()
    browser = await launchChromium()
    return () => browser.close()
  })
  group.each.setup(async () => {
    await clearDevices()
    return async () => {
      for (const agent of agents.splice(0)) await agent.disconnect()
      for (const app of apps.splice(0)) app.disconnect()
      for (const context of contexts.splice(0)) await context.close()
    }
  })

  test("an operator edits a phone's text options and SIM quota, with a bad quota first", async ({ assert }) => {
    const phone = await simulatedPhone('Shop phone')
    agents.push(phone.agent)
    const page = await newPage()
    await signInAs(page, 'operator')
    await openFromMenu(page, 'Phones')
    const card = page.locator('[data-phone="Shop phone"]')
    await card.getByText('Online', { exact: true }).waitFor()
    await card.getByTestId('text-options').getByText('as in Settings > General').waitFor()

    await page.getByRole('button', { name: 'Settings of Shop phone' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByLabel('Strip accents the GSM alphabet lacks (ç → c)').selectOption({ label: 'On for this phone' })
    await dialog.getByLabel('Send in capitals').selectOption({ label: 'Off for this phone' })
    const quota = dialog.getByLabel('SIM 1 daily quota (SMS per day; empty: no quota)')
    await quota.fill('0')
    await screenshotsAtBothWidths(page, 'phone-settings')
    await quota.press('Enter')
    await dialog.getByRole('alert').getByText('Check the fields marked below.').waitFor()
    const feedback = dialog.locator('.n-form-item', { has: page.getByLabel('SIM 1 daily quota (SMS per day; empty: no quota)') }).locator('.n-form-item-feedback')
    assert.match(await feedback.innerText(), /dailyQuota/)
    assert.isNull((await adminApi('GET', `/devices/${phone.id}`)).body.textOptions.stripDiacritics ?? null)

    await quota.fill('50')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.waitFor({ state: 'detached' })
    await card.getByTestId('text-options').getByText('strip accents on, capitals off').waitFor()
    await card.getByText('0 of 50 sent today').waitFor()
    const device = (await adminApi('GET', `/devices/${phone.id}`)).body
    assert.deepEqual(device.textOptions, { stripDiacritics: true, trimWhitespace: null, uppercase: false })
    assert.equal(device.sims[0].dailyQuota, 50)
  })

  test('unpairing asks first, names the phone and its queued messages; the phone leaves every open list live', async ({ assert }) => {
    const online = await simulatedPhone('Counter phone')
    agents.push(online.agent)
    const silent = await simulatedPhone('Drawer phone', false)
    const page = await newPage()
    await signInAs(page, 'operator')
    await openFromMenu(page, 'Phones')
    // A read-only colleague watches the same list, with no button to change anything.
    const watcher = await newPage()
    await signInAs(watcher, 'readonly')
    await openFromMenu(watcher, 'Phones')
    await watcher.locator('[data-phone="Counter phone"]').getByText('Online', { exact: true }).waitFor()
    await watcher.locator('[data-phone="Drawer phone"]').waitFor()
    assert.equal(await watcher.locator('main').getByRole('button').count(), 0)

    await page.getByRole('button', { name: 'Unpair Counter phone…' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByText('Unpair “Counter phone”?').waitFor()
    assert.include(await dialog.innerText(), 'go back to the queue for another phone')
    // Keeping it changes nothing.
    await dialog.getByRole('button', { name: 'Keep it paired' }).click()
    await dialog.waitFor({ state: 'detached' })
    assert.equal((await adminApi('GET', `/devices/${online.id}`)).status, 200)

    await page.getByRole('button', { name: 'Unpair Counter phone…' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Unpair “Counter phone”' }).click()
    await page.locator('[data-phone="Counter phone"]').waitFor({ state: 'detached' })
    await watcher.locator('[data-phone="Counter phone"]').waitFor({ state: 'detached' })
    assert.equal((await adminApi('GET', `/devices/${online.id}`)).status, 404)

    // A phone that was never online leaves too when an integration unpairs it.
    assert.equal((await adminApi('DELETE', `/devices/${silent.id}`)).status, 204)
    await watcher.locator('[data-phone="Drawer phone"]').waitFor({ state: 'detached' })
    await page.locator('[data-phone="Drawer phone"]').waitFor({ state: 'detached' })
    await page.getByText('No phone paired yet.').waitFor()
  })

  test('the pairing dialog offers the SMSGate app: its API URL to copy, its code, SSE only, the https note; the app pairs with them', async ({ assert }) => {
    const page = await newPage()
    await signInAs(page, 'operator')
    await openFromMenu(page, 'Phones')
    await page.getByRole('button', { name: 'Pair a phone' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByTestId('simulator-command').waitFor()

    await dialog.getByText('SMSGate app', { exact: true }).click()
    const steps = dialog.getByTestId('smsgate-steps')
    await steps.waitFor()
    const apiUrl = await dialog.getByTestId('smsgate-api-url').inputValue()
    assert.equal(apiUrl, `${gatewayUrl('')}/api/mobile/v1`)
    const code = (await dialog.getByTestId('pairing-code').innerText()).trim()
    assert.match(code, /^\d{8}$/)
    assert.include(await steps.innerText(), 'SSE only')
    await dialog.getByText('The app speaks plain http only to 127.0.0.1').waitFor()
    assert.equal(await dialog.getByTestId('simulator-command').count(), 0)
    await dialog.getByTestId('copy-api-url').getByRole('button').click()
    await dialog.getByText(/Copied|press Ctrl\+C/).first().waitFor()
    await screenshotsAtBothWidths(page, 'pair-smsgate-app')

    // The app, given the values read off the page, pairs and opens its stream: the dialog says so.
    const app = new FakeSmsgateApp(apiUrl)
    apps.push(app)
    assert.equal((await app.register(code)).status, 201)
    await app.connect()
    await dialog.getByText('is paired and online.').waitFor()
    // Its card says what it is and what it cannot do.
    const card = page.locator('[data-phone="samsung/a52qnsxx"]')
    await card.waitFor()
    assert.include(await card.innerText(), 'SMSGate app')
    assert.include(await card.innerText(), 'not reported by the app')
    await card.getByTestId('phone-limits').waitFor()

    // Back to our agent: a code for it again.
    await dialog.getByRole('button', { name: 'Pair another phone' }).click()
    await dialog.getByText('Our agent', { exact: true }).click()
    await dialog.getByTestId('simulator-command').waitFor()
  })
})
