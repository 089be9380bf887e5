import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import app from '@adonisjs/core/services/app'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { SettingsStore } from '#core/settings/settings_store'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearDevices } from '#tests/helpers/devices'
import { clearMessaging } from '#tests/helpers/messages'
import { PhoneAgent } from '../../agent/src/phone_agent.js'
import { SimulatorDriver } from '../../agent/src/drivers/simulator.js'
import { DESKTOP, gatewayUrl, launchChromium, screenshotsAtBothWidths, signInAs } from './browser.js'

/**
 * Back to what a fresh gateway holds for the four steps: no phone, no message, no API key, a
 * backup schedule no one saved. The suite's shared test keys go with the other keys, and are made
 * again afterwards (`restoreTestKeys`).
 */
async function freshGateway() {
  await clearDevices()
  await clearMessaging()
  await db.from('api_key_daily_usage').delete()
  await db.from('api_keys').delete()
  await db.from('settings').where('section', 'backup').delete()
  ;(await app.container.make(SettingsStore)).invalidate()
}

async function restoreTestKeys() {
  testKeys.read = testKeys.send = testKeys.admin = ''
  await useTestKeys()
}

/** Each step's link and the state its list item says in words, in the list's order. */
async function stepsShown(page: Page): Promise<string[]> {
  const items = page.getByRole('list', { name: 'First steps' }).getByRole('listitem')
  await items.first().waitFor()
  const out: string[] = []
  for (const item of await items.all()) {
    const text = (await item.innerText()).replace(/\s+/g, ' ')
    const link = (await item.getByRole('link').innerText()).trim()
    out.push(`${link}: ${/not done yet/.test(text) ? 'not done yet' : /\bdone\b/.test(text) ? 'done' : '?'}`)
  }
  return out
}

/**
 * Opens the Overview and waits until the steps the role reads have answered, so that a list
 * absent afterwards is absent because the gateway's state hides it, not because it is still read.
 */
async function openOverviewAndWaitForSteps(page: Page, reads: RegExp[]) {
  const answered = Promise.all(reads.map((path) => page.waitForResponse((response) => path.test(response.url()))))
  await page.goto(gatewayUrl('/'))
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
  await answered
  // Two frames: Vue has drawn what the answers changed.
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))')
}

const SUPERADMIN_READS = [/\/api\/v1\/devices\?limit=1$/, /\/api\/v1\/messages\?direction=out&limit=1$/, /\/api\/v1\/api-keys\?limit=1$/, /\/api\/v1\/backups\/schedule$/]

/** An API call with the key made in the test, as an integration makes it. */
async function withKey(key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(gatewayUrl(`/api/v1${path}`), {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as Record<string, any> }
}

test.group("Overview's first steps on a fresh gateway, ticked from the gateway's state", (group) => {
  let browser: Browser
  const contexts: BrowserContext[] = []
  const agents: PhoneAgent[] = []
  const newPage = async (): Promise<Page> => {
    const context = await browser.newContext({ viewport: DESKTOP })
    contexts.push(context)
    return context.newPage()
  }

  group.setup(async () => {
    browser = await launchChromium()
    return () => browser.close()
  })
  group.each.setup(async () => {
    await freshGateway()
    return async () => {
      for (const agent of agents.splice(0)) await agent.disconnect()
      for (const context of contexts.splice(0)) await context.close()
      await clearDevices()
      await clearMessaging()
      await db.from('settings').where('section', 'backup').delete()
      ;(await app.container.make(SettingsStore)).invalidate()
      await restoreTestKeys()
    }
  })

  test('four steps unticked; a key, a phone and an SMS, then a saved schedule tick them; all done, the list is gone', async ({ assert }) => {
    const page = await newPage()
    await signInAs(page, 'superadmin')
    assert.deepEqual(await stepsShown(page), [
      'Pair a phone: not done yet',
      'Send a first SMS: not done yet',
      'Make an API key: not done yet',
      'Check the backup schedule: not done yet',
    ])
    await page.getByTestId('first-steps').getByText('0 of 4 done').waitFor()

    // An API key made through the API, with the superadmin's session as the dashboard makes it.
    const made = (await page.evaluate(`(async () => {
      const token = decodeURIComponent((document.cookie.split('; ').find((cookie) => cookie.startsWith('XSRF-TOKEN=')) ?? '').slice('XSRF-TOKEN='.length))
      const response = await fetch('/api/v1/api-keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-xsrf-token': token },
        body: JSON.stringify({ name: 'Shop integration', scope: 'admin' }),
      })
      return { status: response.status, body: await response.json() }
    })()`)) as { status: number; body: { secret: string } }
    assert.equal(made.status, 201)
    const key = made.body.secret
    await page.reload()
    await page.getByTestId('first-steps').getByText('1 of 4 done').waitFor()
    assert.deepEqual(await stepsShown(page), [
      'Pair a phone: not done yet',
      'Send a first SMS: not done yet',
      'Make an API key: done',
      'Check the backup schedule: not done yet',
    ])

    // A simulated phone paired as the agent pairs, then one SMS sent through the API with the new key.
    const code = (await withKey(key, 'POST', '/devices/pairing-codes')).body.code as string
    const driver = new SimulatorDriver({ sims: [{ slot: 0, label: 'Work', operator: 'Orange' }], battery: { level: 64, charging: true }, signal: 2 })
    const paired = await PhoneAgent.pair(gatewayUrl(''), code, { name: 'Shop phone', sims: driver.sims() })
    const agent = new PhoneAgent({ gatewayUrl: gatewayUrl(''), credential: paired.credential, driver })
    agents.push(agent)
    await agent.connect()
    assert.equal((await withKey(key, 'POST', '/messages', { to: '+33612345678', body: 'Your order is ready' })).status, 202)
    await page.reload()
    await page.getByTestId('first-steps').getByText('3 of 4 done').waitFor()
    assert.deepEqual(await stepsShown(page), [
      'Pair a phone: done',
      'Send a first SMS: done',
      'Make an API key: done',
      'Check the backup schedule: not done yet',
    ])
    await screenshotsAtBothWidths(page, 'first-steps')

    // The last step's link leads to the schedule; saving it, even unchanged, is the check.
    // The form is filled from GET /settings: saving before it answered would send empty fields.
    const settingsRead = page.waitForResponse((response) => /\/api\/v1\/settings$/.test(response.url()))
    await page.getByRole('list', { name: 'First steps' }).getByRole('link', { name: 'Check the backup schedule' }).click()
    await page.getByRole('heading', { name: 'Backups', level: 1 }).waitFor()
    await settingsRead
    await page.waitForFunction('document.getElementById("backup-retention")?.value !== ""')
    await page.getByRole('button', { name: 'Save the schedule' }).click()
    await page.getByRole('status').getByText(/^Saved at/).waitFor()

    await openOverviewAndWaitForSteps(page, SUPERADMIN_READS)
    assert.equal(await page.getByTestId('first-steps').count(), 0)
    assert.equal(await page.getByRole('list', { name: 'First steps' }).count(), 0)
  })

  test('an operator sees only the steps it can do, and may hide them; a read-only account sees no list', async ({ assert }) => {
    const operator = await newPage()
    await signInAs(operator, 'operator')
    assert.deepEqual(await stepsShown(operator), ['Pair a phone: not done yet', 'Send a first SMS: not done yet'])
    await operator.getByTestId('first-steps').getByText('0 of 2 done').waitFor()
    // Not done yet, the phone's step opens the pairing dialog.
    await operator.getByRole('list', { name: 'First steps' }).getByRole('link', { name: 'Pair a phone' }).click()
    await operator.getByRole('heading', { name: 'Phones', level: 1 }).waitFor()
    await operator.getByRole('dialog').waitFor()

    await openOverviewAndWaitForSteps(operator, SUPERADMIN_READS.slice(0, 2))
    await operator.getByRole('button', { name: 'Hide this list' }).click()
    await operator.getByTestId('first-steps').waitFor({ state: 'detached' })
    // Hidden stays hidden for this account, and is not even read: the Overview asks nothing of it.
    const stepReads: string[] = []
    operator.on('request', (request) => {
      if (SUPERADMIN_READS.some((path) => path.test(request.url()))) stepReads.push(request.url())
    })
    await operator.reload()
    await operator.getByTestId('today').waitFor()
    await operator.getByTestId('phones-online').waitFor()
    assert.equal(await operator.getByTestId('first-steps').count(), 0)
    assert.deepEqual(stepReads, [])

    // Hidden by the operator, not for the superadmin in the same browser.
    await operator.getByRole('button', { name: 'Sign out' }).click()
    await operator.getByRole('heading', { name: 'Sign in' }).first().waitFor()
    await signInAs(operator, 'superadmin')
    assert.lengthOf(await stepsShown(operator), 4)

    const viewer = await newPage()
    await signInAs(viewer, 'readonly')
    await viewer.getByTestId('today').waitFor()
    assert.equal(await viewer.getByTestId('first-steps').count(), 0)
    assert.equal(await viewer.getByRole('list', { name: 'First steps' }).count(), 0)
  })
})
