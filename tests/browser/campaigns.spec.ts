import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import app from '@adonisjs/core/services/app'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { ContactImports } from '#modules/contact_imports/services/contact_imports'
import { contactImportJob } from '#modules/contact_imports/jobs/contact_import_job'
import { LiveImports } from '#modules/contact_imports/listeners/live_imports'
import { CampaignEngine } from '#modules/campaigns/services/campaign_engine'
import { campaignJob } from '#modules/campaigns/jobs/campaign_job'
import { testKeys } from '#tests/helpers/callers'
import { clearDevices } from '#tests/helpers/devices'
import { useManualClock } from '#tests/helpers/clock'
import { settle, useDeviceJobs } from '#tests/helpers/phones'
import { clearCampaigns, resetSendingSettings } from '#tests/functional/campaigns/campaign_helpers'
import { PhoneAgent } from '../../agent/src/phone_agent.js'
import { SimulatorDriver } from '../../agent/src/drivers/simulator.js'
import { browserForEachTest, gatewayUrl, screenshotsAtBothWidths, signInAs } from './browser.js'
import { pairingCodeThroughApi } from './helpers_messages.js'

const RECIPIENTS = 1000

test.group('Campaigns in a real browser', (group) => {
  let page: Page
  let folder: string
  let clock: ReturnType<typeof useManualClock>['clock']
  let jobs: Awaited<ReturnType<typeof useDeviceJobs>>
  let agents: PhoneAgent[] = []
  /** One second of the gateway's life: the campaign's pass, the dispatcher, the phones' reports. */
  const second = async () => {
    await clock.advance(1000)
    await settle(clock, jobs.runner, jobs.hub, agents)
  }

  const browsing = browserForEachTest(group, { testKeys: true })
  group.each.setup(async () => {
    folder = await mkdtemp(join(tmpdir(), 'campaign-browser-'))
    await db.from('contact_imports').delete()
    await clearCampaigns()
    await resetSendingSettings() // the night pause off: CI runs at any hour
    await db.from('contacts').delete()
    await clearDevices()
    const manual = useManualClock(new Date())
    clock = manual.clock
    jobs = await useDeviceJobs(clock)
    jobs.runner.register(campaignJob(() => app.container.make(CampaignEngine), clock.now()))
    const live = await app.container.make(LiveImports)
    jobs.runner.register(contactImportJob(() => app.container.make(ContactImports), (id, final) => void live.progressed(id, final)))
    agents = []
    page = browsing.page
    return async () => {
      for (const agent of agents) await agent.disconnect()
      await jobs.hub.settled()
      await jobs.stop()
      manual.restore()
      await rm(folder, { recursive: true, force: true })
    }
  })

  test('a 1,000-recipient CSV campaign through the wizard, paused and resumed on the way, watched live to completed', async ({ assert }) => {
    const rows = Array.from({ length: RECIPIENTS }, (_, index) => `+3361${String(index).padStart(7, '0')},Client${index}`)
    const csv = join(folder, 'customers.csv')
    await writeFile(csv, `Mobile,First name\n${rows.join('\n')}\n`)
    for (const name of ['Phone A', 'Phone B']) {
      const driver = new SimulatorDriver({})
      const paired = await PhoneAgent.pair(process.env.GATEWAY_PUBLIC_URL!, await pairingCodeThroughApi(), { name, sims: driver.sims() })
      const agent = new PhoneAgent({ gatewayUrl: process.env.GATEWAY_PUBLIC_URL!, credential: paired.credential, driver })
      await agent.connect()
      agents.push(agent)
    }

    await signInAs(page, 'operator')
    // The CSV goes in through the import page: columns recognised, 1,000 rows imported.
    await page.goto(gatewayUrl('/contacts/import'))
    await page.getByLabel('CSV file').setInputFiles(csv)
    await page.getByRole('button', { name: 'Upload and read the columns' }).click()
    await page.getByRole('button', { name: 'Import 1,000 rows' }).click()
    await second()
    await page.getByRole('heading', { name: 'Imported' }).waitFor()
    await page.getByTestId('import-counts').getByText('New contacts1,000').waitFor()

    await page.getByRole('navigation', { name: 'Pages' }).getByRole('menuitem', { name: 'Campaigns' }).click()
    await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'New campaign' }).click()
    await page.getByRole('heading', { name: 'New campaign', level: 1 }).waitFor()

    // 1. Audience: the imported file.
    await page.getByLabel('Campaign name').fill('Spring sale')
    await page.getByText('customers.csv (1000 contacts').click()
    await screenshotsAtBothWidths(page, 'campaign-wizard-audience')
    await page.getByRole('button', { name: 'Next: the message' }).click()
    // 2. Message with a variable and its fallback.
    await page.getByLabel('Message').fill('Hi {{firstName|there}}, spring sale: 20% off until Sunday.')
    await page.getByTestId('counter-segments').getByText('1 SMS').waitFor()
    await page.getByRole('button', { name: 'Next: when and how fast' }).click()
    // 3. Now, at most 3,000 a minute (50 a second); the night pause is shown as off.
    await page.getByTestId('window-note').getByText('at any hour').waitFor()
    await page.getByLabel('At most').check()
    await page.getByLabel('Messages per minute').fill('3000')
    await page.getByRole('button', { name: 'Next: review' }).click()
    // 4. Review: every recipient, a sample with its own name, the duration at the pace chosen.
    await page.getByTestId('review-recipients').getByText('1,000').waitFor()
    await page.getByText('about 20 seconds').waitFor()
    await page.getByText('Hi Client0, spring sale: 20% off until Sunday.').waitFor()
    await screenshotsAtBothWidths(page, 'campaign-wizard-review')
    await page.getByRole('button', { name: 'Launch' }).click()

    // The progress page, live from here on: no reload.
    await page.getByRole('heading', { name: 'Campaign', level: 1 }).waitFor()
    const status = page.getByTestId('campaign-status')
    await status.getByText('Running').waitFor()
    const url = page.url()
    const delivered = async () => Number((await db.from('messages').where('category', 'campaign').where('status', 'delivered').count('* as n'))[0].n)
    for (let tick = 0; tick < 4; tick++) await second()
    const beforePause = await delivered()
    assert.isAbove(beforePause, 0)
    assert.isBelow(beforePause, RECIPIENTS)
    // The page follows: its bar moved without a reload (live updates are at most one a second).
    await page.waitForFunction(`Number(document.querySelector('[role="progressbar"]')?.getAttribute('aria-valuenow')) > 0`)

    await page.getByRole('button', { name: 'Pause' }).click()
    await status.getByText('Paused').waitFor()
    for (let tick = 0; tick < 5; tick++) await second()
    const whilePaused = await delivered()
    assert.isAtMost(whilePaused - beforePause, 100, 'at most what phones already held went on')
    for (let tick = 0; tick < 5; tick++) await second()
    assert.equal(await delivered(), whilePaused, 'nothing more leaves while paused')
    await page.getByRole('button', { name: 'Resume' }).click()
    await status.getByText('Running').waitFor()

    for (let tick = 0; tick < 120; tick++) {
      await second()
      if ((await db.from('campaigns').first()).status === 'completed') break
    }
    await status.getByText('Completed').waitFor()
    await page.getByRole('progressbar', { name: `${RECIPIENTS} of ${RECIPIENTS} recipients done` }).waitFor()
    assert.equal(page.url(), url, 'watched without leaving the page')
    await screenshotsAtBothWidths(page, 'campaign-progress')

    const messages = await db.from('messages').where('category', 'campaign').select('status', 'body')
    assert.lengthOf(messages, RECIPIENTS)
    assert.isTrue(messages.every((message) => message.status === 'delivered'))
    assert.equal(new Set(messages.map((message) => message.body)).size, RECIPIENTS, 'each recipient got their own name')

    // The recipients' list, filtered.
    await page.getByLabel('Status').selectOption('delivered')
    await page.getByTestId('campaign-recipients').getByText('delivered').first().waitFor()
    assert.isAbove(await page.getByTestId('campaign-recipients').locator('tbody tr').count(), 0)
  }).timeout(300_000)

  test('Settings > Sending: the night pause and the send window of campaigns are set from the page', async ({ assert }) => {
    await signInAs(page, 'superadmin')
    await page.goto(gatewayUrl('/settings/sending'))
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()
    await page.getByLabel('Night pause', { exact: true }).check()
    await page.getByLabel('Night pause starts').fill('22:00')
    await page.getByLabel('Night pause ends').fill('07:30')
    await page.getByLabel('Send window', { exact: true }).check()
    await page.getByLabel('Sun').uncheck()
    await page.getByLabel('Send window starts').fill('08:00')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').getByText('Saved.').waitFor()
    const saved = (await (await fetch(gatewayUrl('/api/v1/settings'), { headers: { 'x-api-key': testKeys.admin } })).json()) as { sending: Record<string, unknown> }
    assert.deepInclude(saved.sending, {
      nightPauseEnabled: true,
      nightPauseStart: '22:00',
      nightPauseEnd: '07:30',
      campaignWindowEnabled: true,
      campaignWindowStart: '08:00',
      campaignWindowDays: [1, 2, 3, 4, 5, 6],
    })
  })

  test('a read-only account sees campaigns and their progress, with no action button', async ({ assert }) => {
    const created = await fetch(gatewayUrl('/api/v1/campaigns'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': testKeys.admin },
      body: JSON.stringify({ name: 'Read me', body: 'Hello', audience: { numbers: ['+33612345678'] } }),
    })
    const { id } = (await created.json()) as { id: string }
    await fetch(gatewayUrl(`/api/v1/campaigns/${id}/launch`), { method: 'POST', headers: { 'x-api-key': testKeys.admin } })
    await second()

    await signInAs(page, 'readonly')
    await page.goto(gatewayUrl('/campaigns'))
    await page.getByRole('link', { name: 'Read me' }).click()
    await page.getByTestId('campaign-status').waitFor()
    const buttons = (await page.locator('main').getByRole('button').allTextContents()).map((text) => text.trim())
    assert.deepEqual(buttons.filter((text) => /^(pause|resume|cancel|retry|launch|new)/i.test(text)), [])
    await page.goto(gatewayUrl('/campaigns/new'))
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
  })
})
