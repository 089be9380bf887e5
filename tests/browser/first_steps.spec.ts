import { test } from '@japa/runner'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { checkedFetch } from '#tests/helpers/answer_contract'
import { TEST_PASSWORD } from '#tests/helpers/callers'
import { freePort, startGateway, stop } from '#tests/helpers/gateway_process'
import { PhoneAgent } from '../../agent/src/phone_agent.js'
import { SimulatorDriver } from '../../agent/src/drivers/simulator.js'
import { DESKTOP, launchChromium, screenshotsAtBothWidths } from './browser.js'

/**
 * The steps read the whole gateway's state (any phone, any outgoing SMS, any API key, a saved
 * schedule), so only a fresh gateway shows them unticked: each test starts one of its own, as its
 * own process on a data folder of its own (tests/helpers/gateway_process.ts), and removes both
 * afterwards. The suite's gateway, its keys and every other spec's rows are left untouched.
 */
interface FreshGateway {
  child: ChildProcess
  root: string
  /** Its address, without a trailing slash. */
  url: string
  /** Each role's e-mail address on it, all with TEST_PASSWORD. */
  emails: Record<'superadmin' | 'operator' | 'readonly', string>
}

async function freshGateway(): Promise<FreshGateway> {
  const root = mkdtempSync(join(tmpdir(), 'gateway-first-steps-'))
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  try {
    // Its own public address: the suite's process sets another one in the environment.
    const { child } = await startGateway(join(root, 'gateway-data'), { port, env: { GATEWAY_PUBLIC_URL: url } })
    const emails = { superadmin: 'superadmin@gateway.test', operator: 'operator@gateway.test', readonly: 'readonly@gateway.test' }
    try {
      const setUp = await checkedFetch(`${url}/api/v1/auth/setup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: emails.superadmin, password: TEST_PASSWORD, name: 'Test superadmin' }),
      })
      if (setUp.status !== 201) throw new Error(`the first account was not made: ${setUp.status}`)
      const jar = new Map(setUp.headers.getSetCookie().map((line) => line.split(';')[0].split(/=(.*)/s).slice(0, 2) as [string, string]))
      for (const role of ['operator', 'readonly'] as const) {
        const made = await checkedFetch(`${url}/api/v1/users`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'cookie': [...jar].map(([key, value]) => `${key}=${value}`).join('; '),
            'x-xsrf-token': decodeURIComponent(jar.get('XSRF-TOKEN') ?? ''),
          },
          body: JSON.stringify({ email: emails[role], password: TEST_PASSWORD, name: `Test ${role}`, role }),
        })
        if (made.status !== 201) throw new Error(`the ${role} account was not made: ${made.status}`)
      }
      return { child, root, url, emails }
    } catch (error) {
      await stop(child, 'SIGTERM')
      throw error
    }
  } catch (error) {
    rmSync(root, { recursive: true, force: true })
    throw error
  }
}

/** Signs the role's account in through the gateway's own form, as a person does, and waits for the Overview. */
async function signInAs(page: Page, gateway: FreshGateway, role: keyof FreshGateway['emails']) {
  await page.goto(`${gateway.url}/sign-in`)
  await page.getByLabel('E-mail address').fill(gateway.emails[role])
  await page.getByLabel('Password').fill(TEST_PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
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
async function openOverviewAndWaitForSteps(page: Page, gateway: FreshGateway, reads: RegExp[]) {
  const answered = Promise.all(reads.map((path) => page.waitForResponse((response) => path.test(response.url()))))
  await page.goto(`${gateway.url}/`)
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
  await answered
  // Two frames: Vue has drawn what the answers changed.
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))')
}

const SUPERADMIN_READS = [/\/api\/v1\/devices\?limit=1$/, /\/api\/v1\/messages\?direction=out&limit=1$/, /\/api\/v1\/api-keys\?limit=1$/, /\/api\/v1\/backups\/schedule$/]

/** An API call with the key made in the test, as an integration makes it. */
async function withKey(gateway: FreshGateway, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${gateway.url}/api/v1${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as Record<string, any> }
}

test.group("Overview's first steps on a fresh gateway, ticked from the gateway's state", (group) => {
  let browser: Browser
  let gateway: FreshGateway
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
    gateway = await freshGateway()
    return async () => {
      for (const agent of agents.splice(0)) await agent.disconnect()
      for (const context of contexts.splice(0)) await context.close()
      if (gateway.child.exitCode === null) await stop(gateway.child, 'SIGTERM')
      rmSync(gateway.root, { recursive: true, force: true })
    }
  })

  test('four steps unticked; a key, a phone and an SMS, then a saved schedule tick them; all done, the list is gone', async ({ assert }) => {
    const page = await newPage()
    await signInAs(page, gateway, 'superadmin')
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
    const code = (await withKey(gateway, key, 'POST', '/devices/pairing-codes')).body.code as string
    const driver = new SimulatorDriver({ sims: [{ slot: 0, label: 'Work', operator: 'Orange' }], battery: { level: 64, charging: true }, signal: 2 })
    const paired = await PhoneAgent.pair(gateway.url, code, { name: 'Shop phone', sims: driver.sims() })
    const agent = new PhoneAgent({ gatewayUrl: gateway.url, credential: paired.credential, driver })
    agents.push(agent)
    await agent.connect()
    assert.equal((await withKey(gateway, key, 'POST', '/messages', { to: '+33612345678', body: 'Your order is ready' })).status, 202)
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

    await openOverviewAndWaitForSteps(page, gateway, SUPERADMIN_READS)
    assert.equal(await page.getByTestId('first-steps').count(), 0)
    assert.equal(await page.getByRole('list', { name: 'First steps' }).count(), 0)
  })

  test('an operator sees only the steps it can do, and may hide them; a read-only account sees no list', async ({ assert }) => {
    const operator = await newPage()
    await signInAs(operator, gateway, 'operator')
    assert.deepEqual(await stepsShown(operator), ['Pair a phone: not done yet', 'Send a first SMS: not done yet'])
    await operator.getByTestId('first-steps').getByText('0 of 2 done').waitFor()
    // Not done yet, the phone's step opens the pairing dialog.
    await operator.getByRole('list', { name: 'First steps' }).getByRole('link', { name: 'Pair a phone' }).click()
    await operator.getByRole('heading', { name: 'Phones', level: 1 }).waitFor()
    await operator.getByRole('dialog').waitFor()

    await openOverviewAndWaitForSteps(operator, gateway, SUPERADMIN_READS.slice(0, 2))
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
    await signInAs(operator, gateway, 'superadmin')
    assert.lengthOf(await stepsShown(operator), 4)

    const viewer = await newPage()
    await signInAs(viewer, gateway, 'readonly')
    await viewer.getByTestId('today').waitFor()
    assert.equal(await viewer.getByTestId('first-steps').count(), 0)
    assert.equal(await viewer.getByRole('list', { name: 'First steps' }).count(), 0)
  })
})
