import { test } from '@japa/runner'
import { createHmac } from 'node:crypto'
import db from '@adonisjs/lucid/services/db'
import type { Page } from 'playwright-core'
import { useManualClock } from '#tests/helpers/clock'
import { clearMessaging } from '#tests/helpers/messages'
import { clearDevices } from '#tests/helpers/devices'
import { settle, useDeviceJobs } from '#tests/helpers/phones'
import { clearWebhooks, startReceiver, type Receiver } from '#tests/helpers/webhooks'
import { clearAutomation, useRuleEngine } from '#tests/helpers/automation'
import { PhoneAgent } from '../../agent/src/phone_agent.js'
import { SimulatorDriver } from '../../agent/src/drivers/simulator.js'
import { pairingCodeThroughApi } from './helpers_messages.js'
import { browserForEachTest, gatewayUrl, screenshotsAtBothWidths, signInAs } from './browser.js'

const CUSTOMER = '+33612345678'

test.group('Automation rules in a real browser', (group) => {
  let page: Page
  let clock: ReturnType<typeof useManualClock>['clock']
  let engine: Awaited<ReturnType<typeof useRuleEngine>>
  let jobs: Awaited<ReturnType<typeof useDeviceJobs>>
  let target: Receiver
  let agent: PhoneAgent | null = null
  /** The gateway's jobs and the phone until everything in flight has landed. */
  const flush = async () => {
    await settle(clock, engine.runner, jobs.hub, agent ? [agent] : [])
    await engine.settle()
  }

  const browsing = browserForEachTest(group, { testKeys: true })
  group.each.setup(async () => {
    await clearMessaging()
    await clearAutomation()
    await clearWebhooks()
    await clearDevices()
    const manual = useManualClock(new Date())
    clock = manual.clock
    engine = await useRuleEngine(clock)
    jobs = await useDeviceJobs(clock, engine.runner)
    target = await startReceiver()
    page = browsing.page
    return async () => {
      await agent?.disconnect()
      agent = null
      await jobs.hub.settled()
      await engine.stop()
      await target.close()
      manual.restore()
    }
  })

  test('a keyword rule with a reply and a URL call, built on its page; an SMS from a phone gets the reply, the call is signed, the run is logged; STOP opts out', async ({ assert }) => {
    const driver = new SimulatorDriver({})
    const paired = await PhoneAgent.pair(process.env.GATEWAY_PUBLIC_URL!, await pairingCodeThroughApi(), { name: 'Shop phone', sims: driver.sims() })
    agent = new PhoneAgent({ gatewayUrl: process.env.GATEWAY_PUBLIC_URL!, credential: paired.credential, driver })
    await agent.connect()

    await signInAs(page, 'operator')
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('menuitem', { name: 'Rules' }).click()
    await page.getByRole('heading', { name: 'Rules', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'New rule' }).click()
    await page.getByRole('heading', { name: 'Rule', level: 1 }).waitFor()
    await page.getByLabel('Name', { exact: true }).fill('Opening hours')

    // When: the first word is HOURS.
    await page.getByLabel('Add a condition').selectOption({ label: 'The text' })
    await page.getByLabel('Word, words or pattern').fill('hours')
    // Then: the reply (there by default), and a URL call.
    await page.getByLabel('Reply text').fill('Hello {{firstName|there}}, we open at 9.')
    await page.getByLabel('Add an action').selectOption({ label: 'Call a URL' })
    await page.getByLabel('URL to call').fill(target.url)
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByText('Saved.').waitFor()
    const secret = await page.locator('#rule-secret').inputValue()
    assert.match(secret, /^rsec_/)

    // The test box judges a sample without doing anything.
    await page.getByLabel('Sample text').fill('Hours please')
    await page.getByLabel('Sample sender').fill(CUSTOMER)
    await page.getByRole('button', { name: 'Test', exact: true }).click()
    await page.getByTestId('rule-verdict').getByText('It would run').waitFor()
    await page.getByTestId('rule-verdict').getByText('“Hello there, we open at 9.”').waitFor()
    assert.lengthOf(driver.sent, 0)

    // An SMS arrives on the phone: the reply goes out through the same phone, the call is made.
    driver.receive(CUSTOMER, 'hours?', 0, 'sms-1')
    await flush()
    await flush()
    assert.lengthOf(driver.sent, 1)
    assert.deepInclude(driver.sent[0], { to: CUSTOMER, text: 'Hello there, we open at 9.', simSlot: 0 })
    assert.lengthOf(target.calls, 1)
    const [call] = target.calls
    const expected = createHmac('sha256', secret).update(`${call.headers['x-timestamp']}.${call.headers['x-delivery-id']}.${call.rawBody}`).digest('hex')
    assert.equal(call.headers['x-signature'], `sha256=${expected}`)
    assert.containsSubset(JSON.parse(call.rawBody), { ruleName: 'Opening hours', maskedPhone: '+33•••••••78' })

    // The run is in the rule's log.
    await page.reload()
    const run = page.locator('[data-run="Opening hours"]').first()
    await run.getByText('Reply: done').waitFor()
    await run.getByText('Call a URL: done').waitFor()
    // Each action's status in the shared words (labels.ts), never the API's `done`.
    assert.deepEqual((await run.locator('[data-action-status]').allInnerTexts()).map((text) => text.trim()).sort(), ['Call a URL: Done', 'Reply: Done'])
    await screenshotsAtBothWidths(page, 'rule-editor')

    // STOP: the sender is opted out, logged under the built-in keyword.
    driver.receive(CUSTOMER, 'STOP', 0, 'sms-2')
    await flush()
    await page.getByRole('link', { name: '← Rules' }).click()
    await page.locator('[data-run="Opt-out keyword STOP"]').getByText('Opt the sender out: done').waitFor()
    await page.locator('[data-rule="Opening hours"]').waitFor()
    await screenshotsAtBothWidths(page, 'rules')
    await page.goto(gatewayUrl('/contacts'))
    await page.getByText('Opted out').waitFor()
    // The rule ran on STOP too, but its reply was not sent to the opted-out number.
    assert.lengthOf(driver.sent, 1)
  })

  test('the opt-out keywords and the reply limit are edited in Settings > Reception', async ({ assert }) => {
    await signInAs(page, 'superadmin')
    await page.goto(gatewayUrl('/settings/reception'))
    await page.getByLabel('Reply to an opt-out').fill('You will get no more messages. Reply START to come back.')
    await page.getByLabel('Automatic replies per number').fill('5')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByText('Saved.').waitFor()
    const row = await db.from('settings').where('section', 'reception').first()
    const stored = JSON.parse(row.value)
    assert.equal(stored.optOutReply, 'You will get no more messages. Reply START to come back.')
    assert.equal(stored.autoReplyLimit, 5)
    assert.includeMembers(stored.optOutKeywords, ['STOP', 'UNSUBSCRIBE'])
  })

  test('a read-only account sees the rules and their runs, and no button to change them', async () => {
    await clearAutomation()
    await db.table('automation_rules').insert({ name: 'Seen', enabled: true, position: 1, stop_after: false, conditions: '[]', actions: '[{"type":"opt_in"}]', created_at: new Date().toISOString(), updated_at: new Date().toISOString() })
    await signInAs(page, 'readonly')
    await page.goto(gatewayUrl('/rules'))
    await page.locator('[data-rule="Seen"]').waitFor()
    if ((await page.getByRole('button', { name: 'New rule' }).count()) > 0) throw new Error('a read-only account sees New rule')
    if ((await page.getByRole('button', { name: 'Delete' }).count()) > 0) throw new Error('a read-only account sees Delete')
    // The rule's page shows it without letting it be changed; the test box still works.
    await page.getByRole('link', { name: '1. Seen' }).click()
    await page.getByRole('heading', { name: 'Rule', level: 1 }).waitFor()
    await page.getByLabel('Name', { exact: true }).waitFor()
    if (!(await page.getByLabel('Name', { exact: true }).isDisabled())) throw new Error('a read-only account may type in the rule')
    if ((await page.getByRole('button', { name: 'Save' }).count()) > 0) throw new Error('a read-only account sees Save')
    if (await page.getByRole('button', { name: 'Test', exact: true }).isDisabled()) throw new Error('the test box is closed to a reader')
  })
})
