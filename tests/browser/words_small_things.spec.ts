import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import app from '@adonisjs/core/services/app'
import type { Page } from 'playwright-core'
import type { Assert } from '@japa/assert'
import { TEST_PASSWORD, accountWithRole, testKeys, useTestKeys } from '#tests/helpers/callers'
import User from '#modules/auth/models/user'
import { UserService } from '#modules/auth/services/user_service'
import { clearDevices } from '#tests/helpers/devices'
import { clearMessaging } from '#tests/helpers/messages'
import { useManualClock } from '#tests/helpers/clock'
import { eventually, settle, useDeviceJobs } from '#tests/helpers/phones'
import { clearCampaigns, resetSendingSettings } from '#tests/functional/campaigns/campaign_helpers'
import { CampaignEngine } from '#modules/campaigns/services/campaign_engine'
import { campaignJob } from '#modules/campaigns/jobs/campaign_job'
import { browserForEachTest, gatewayUrl, signInAs } from './browser.js'
import { connectedSimulatedPhone } from './helpers_conversations.js'
import { queueThroughApi, rowOf } from './helpers_messages.js'

const ADA = '+33612345678'
const BOB = '+447911123456'
const CAROL = '+33698765432'

/** The texts of a select's options, the "any" choice left out. */
const optionTexts = async (page: Page, selector: string) => {
  await page.locator(selector).locator('option').last().waitFor({ state: 'attached' })
  return page.locator(selector).locator('option').evaluateAll((options) => options.filter((option) => (option.getAttribute('value') ?? '') !== '').map((option) => option.textContent!.trim()))
}

test.group('Words and the small things that cost clicks, in a real browser', (group) => {
  let page: Page

  const browsing = browserForEachTest(group, { testKeys: true })
  group.each.setup(async () => {
    await clearMessaging()
    await clearDevices()
    await useTestKeys()
    page = browsing.page
  })

  test('one set of labels: an incoming SMS reads Received, a status and a category read the same on every page', async ({ assert }) => {
    // The campaign's pass and the dispatcher run on a ManualClock: the campaign's message is
    // made when the test lets a second pass, and with no phone online it stays queued.
    await clearCampaigns()
    await resetSendingSettings()
    const manual = useManualClock(new Date())
    const jobs = await useDeviceJobs(manual.clock)
    jobs.runner.register(campaignJob(() => app.container.make(CampaignEngine), manual.clock.now()))
    try {
      await labelsEverywhere(assert, jobs, manual.clock)
    } finally {
      await jobs.hub.settled()
      await jobs.stop()
      manual.restore()
    }
  })

  async function labelsEverywhere(
    assert: Assert,
    jobs: Awaited<ReturnType<typeof useDeviceJobs>>,
    clock: ReturnType<typeof useManualClock>['clock']
  ) {
    // An SMS received, then the phone gone: what is queued afterwards stays queued while the test reads it.
    const phone = await connectedSimulatedPhone()
    await phone.receive(ADA, 'Is my table ready?')
    await phone.agent.disconnect()
    const inbound = String((await db.from('messages').where('direction', 'in').first()).id)
    const reply = await queueThroughApi({ to: ADA, category: 'conversation', body: 'Yes, table 4' })
    const info = await queueThroughApi({ to: BOB, category: 'info' })
    const created = await fetch(gatewayUrl('/api/v1/campaigns'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': testKeys.admin },
      body: JSON.stringify({ name: 'Labels', body: 'Hello', audience: { numbers: [CAROL] } }),
    })
    const campaignId = ((await created.json()) as { id: string }).id
    assert.equal((await fetch(gatewayUrl(`/api/v1/campaigns/${campaignId}/launch`), { method: 'POST', headers: { 'x-api-key': testKeys.admin } })).status, 200)
    for (let tick = 0; tick < 10 && !(await db.from('messages').where('phone', CAROL).first()); tick++) {
      await clock.advance(1000)
      await settle(clock, jobs.runner, jobs.hub, [])
    }
    const campaignMessage = String((await db.from('messages').where('phone', CAROL).first()).id)

    await signInAs(page, 'operator')

    // Overview: the tiles' statuses in the shared words.
    const tiles = await page.locator('.n-statistic .n-statistic__label').allInnerTexts()
    for (const word of ['Sent', 'Delivered', 'Failed']) assert.include(tiles.map((text) => text.trim()), word)

    // Messages: the incoming SMS reads Received (the API keeps delivered), the others Queued, categories capitalised.
    await page.goto(gatewayUrl('/messages'))
    await rowOf(page, inbound).waitFor()
    const inboundTag = rowOf(page, inbound).locator('[data-status]')
    assert.equal(await inboundTag.getAttribute('data-status'), 'delivered')
    assert.equal((await inboundTag.innerText()).trim(), 'Received')
    const queuedWord = (await rowOf(page, reply).locator('[data-status="queued"]').innerText()).trim()
    assert.equal(queuedWord, 'Queued')
    assert.include(await rowOf(page, info).innerText(), 'Info')
    assert.include(await rowOf(page, reply).innerText(), 'Conversation')
    assert.include(await rowOf(page, inbound).innerText(), 'Incoming')
    const statusChoices = await optionTexts(page, '#filter-status')
    const categoryChoices = await optionTexts(page, '#filter-category')
    assert.deepEqual(categoryChoices, ['Transactional', 'Conversation', 'Info', 'Campaign'])
    assert.includeMembers(statusChoices, ['Queued', 'On a phone', 'Sent', 'Delivered', 'Failed', 'Waiting for quota', 'Paused', 'Cancelled'])
    for (const word of statusChoices) assert.match(word, /^[A-Z]/)
    assert.deepEqual(await optionTexts(page, '#filter-direction'), ['Outgoing', 'Incoming'])

    // The incoming message's panel says Received too.
    await rowOf(page, inbound).getByRole('link').click()
    assert.equal((await page.getByTestId('detail-status').innerText()).trim(), 'Received')

    // Conversations: the reply's status in the thread is the Messages row's word.
    const conversationId = String((await db.from('conversations').where('phone', ADA).first()).id)
    await page.goto(gatewayUrl(`/conversations?c=${conversationId}`))
    const bubble = page.locator(`[data-message="${reply}"] [data-status]`)
    await bubble.waitFor()
    assert.equal((await bubble.innerText()).trim(), queuedWord)

    // Send: the category list is the Messages filter's.
    await page.goto(gatewayUrl('/send'))
    assert.deepEqual(await optionTexts(page, '#send-category'), categoryChoices)

    // A campaign's recipients: the recipient's status reads as its message's row does, and the
    // filter offers the same words.
    await page.goto(gatewayUrl(`/campaigns/${campaignId}`))
    const recipientTag = page.getByTestId('campaign-recipients').locator('[data-status="queued"]')
    await recipientTag.waitFor()
    assert.equal((await recipientTag.innerText()).trim(), queuedWord)
    const recipientChoices = await optionTexts(page, 'select[name="recipient-status"]')
    // A recipient's message is outgoing: every word of the Messages filter but Received.
    assert.includeMembers(recipientChoices, statusChoices.filter((word) => word !== 'Received'))
    const tileWords = await page.locator('.tiles dt').allInnerTexts()
    // The counts' tiles: a message's status in the Messages filter's word, plus the recipients not yet given a message.
    assert.includeMembers([...statusChoices, 'Waiting their turn'], tileWords.map((text) => text.trim()))
    assert.lengthOf(tileWords, 8)
    await page.goto(gatewayUrl(`/messages?message=${campaignMessage}`))
    assert.equal((await page.getByTestId('detail-status').innerText()).trim(), queuedWord)
  }

  test('the Messages status filter offers Received: it lists the incoming SMS, and Delivered only the outgoing ones delivered', async ({ assert }) => {
    // The dispatcher runs on a ManualClock: one message goes through the phone and is delivered,
    // then the phone leaves and the next one stays queued.
    const manual = useManualClock(new Date())
    const jobs = await useDeviceJobs(manual.clock)
    const phone = await connectedSimulatedPhone()
    let inbound: string, delivered: string, queued: string
    try {
      await phone.receive(ADA, 'Is my table ready?')
      inbound = String((await db.from('messages').where('direction', 'in').first()).id)
      delivered = await queueThroughApi({ to: BOB })
      await eventually(async () => {
        await settle(manual.clock, jobs.runner, jobs.hub, [phone.agent])
        return (await db.from('messages').where('id', delivered).first()).status === 'delivered'
      }, 15_000)
      await phone.agent.disconnect()
      queued = await queueThroughApi({ to: CAROL })
    } finally {
      await phone.agent.disconnect()
      await jobs.hub.settled()
      await jobs.stop()
      manual.restore()
    }

    await signInAs(page, 'operator')
    await page.goto(gatewayUrl('/messages'))
    await page.getByText('3 messages shown').waitFor()
    assert.include(await optionTexts(page, '#filter-status'), 'Received')

    await page.getByLabel('Status').selectOption({ label: 'Received' })
    await page.getByText('1 message shown').waitFor()
    await rowOf(page, inbound).waitFor()
    assert.equal((await rowOf(page, inbound).locator('[data-status]').innerText()).trim(), 'Received')
    assert.include(page.url(), 'status=received')
    // Kept in the address: a reload lists the same.
    await page.reload()
    await page.getByText('1 message shown').waitFor()
    assert.equal(await page.getByLabel('Status').inputValue(), 'received')
    await rowOf(page, inbound).waitFor()

    // Delivered lists the rows that read Delivered: the incoming SMS reads Received, so it is not one.
    await page.getByLabel('Status').selectOption({ label: 'Delivered' })
    await page.getByText('1 message shown').waitFor()
    await rowOf(page, delivered).waitFor()
    assert.equal((await rowOf(page, delivered).locator('[data-status]').innerText()).trim(), 'Delivered')
    assert.equal(await rowOf(page, inbound).count(), 0)
    assert.equal(await rowOf(page, queued).count(), 0)
  })

  test('at 1280 px the open message sits beside the list: the Status, Phone and Category headers stay visible, not under it', async ({ assert }) => {
    const id = await queueThroughApi({ to: BOB, category: 'info' })
    await signInAs(page, 'operator')
    await page.goto(gatewayUrl(`/messages?message=${id}`))
    const panel = page.getByTestId('message-panel')
    await panel.getByTestId('detail-status').waitFor()
    const panelBox = (await panel.boundingBox())!
    for (const title of ['Status', 'Phone', 'Category']) {
      const header = page.getByTestId('messages-table').locator('th').filter({ hasText: new RegExp(`^${title}$`) })
      await header.waitFor()
      const box = (await header.boundingBox())!
      assert.isAtLeast(box.x, 0, title)
      assert.isAtMost(box.x + box.width, panelBox.x, `${title} ends before the panel starts`)
      // Nothing drawn over it: the element at its middle is the header cell itself.
      const onTop = await header.evaluate((cell) => {
        const rect = cell.getBoundingClientRect()
        const found = cell.ownerDocument.elementFromPoint(rect.x + rect.width / 2, rect.y + rect.height / 2)
        return found !== null && cell.contains(found)
      })
      assert.isTrue(onTop, `${title} is not covered`)
    }
    // The row stays in reach: another one opens in the panel's place.
    assert.isTrue(await rowOf(page, id).isVisible())
  })

  test("the Conversations reply box counts characters and SMS parts as Send does, GSM-7 and Unicode", async ({ assert }) => {
    const phone = await connectedSimulatedPhone()
    await phone.receive(ADA, 'Can I book for tonight?')
    await phone.agent.disconnect()
    const conversationId = String((await db.from('conversations').where('phone', ADA).first()).id)
    await signInAs(page, 'operator')

    const texts = ['a'.repeat(161), 'Table for 4 at 8pm? Merci 😀', 'Price: 10€ [tonight]']
    const counted = async (counter: ReturnType<Page['getByTestId']>) =>
      Promise.all(['counter-characters', 'counter-encoding', 'counter-segments'].map(async (testId) => (await counter.getByTestId(testId).innerText()).trim()))

    await page.goto(gatewayUrl('/send'))
    const onSend: string[][] = []
    for (const text of texts) {
      await page.getByLabel('Message').fill(text)
      onSend.push(await counted(page.getByTestId('text-counter')))
    }
    assert.deepEqual(onSend[0], ['161 characters', 'GSM-7', '2 SMS'])
    assert.deepEqual(onSend[1], ['27 characters', 'UCS-2', '1 SMS'])

    await page.goto(gatewayUrl(`/conversations?c=${conversationId}`))
    const thread = page.getByRole('region', { name: `Conversation with ${ADA}` })
    const reply = thread.getByLabel('Reply', { exact: true })
    await reply.waitFor()
    const counter = thread.getByTestId('text-counter')
    for (const [index, text] of texts.entries()) {
      await reply.fill(text)
      assert.deepEqual(await counted(counter), onSend[index], text)
    }
    await reply.fill('Merci 😀')
    await counter.getByText('“😀” is outside the GSM alphabet').waitFor()
  })

  test('at 360 px every Settings tab is on screen, Notifications and Backup included, and opens its section', async ({ assert }) => {
    await page.setViewportSize({ width: 360, height: 640 })
    await signInAs(page, 'superadmin')
    await page.goto(gatewayUrl('/settings/general'))
    const tabs = page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link')
    await tabs.first().waitFor()
    const titles = (await tabs.allInnerTexts()).map((text) => text.trim())
    assert.includeMembers(titles, ['General', 'Sending', 'Reception', 'Notifications', 'Backup'])
    for (const title of titles) {
      const box = (await tabs.filter({ hasText: title }).boundingBox())!
      assert.isAtLeast(box.x, 0, title)
      assert.isAtMost(box.x + box.width, 360, `${title} inside the screen's width`)
      assert.isAtMost(box.y + box.height, 640, `${title} inside the screen's height`)
    }
    assert.equal(Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')), 0)
    await tabs.filter({ hasText: 'Backup' }).click()
    await page.waitForURL(/\/settings\/backup$/)
    await tabs.filter({ hasText: 'Notifications' }).click()
    await page.waitForURL(/\/settings\/notifications$/)
  })

  test("Accounts offers no Remove on one's own account nor on the last superadmin, and says why", async ({ assert }) => {
    await User.query().where('role', 'superadmin').delete()
    await User.query().where('email', 'second@example.test').delete()
    const owner = await accountWithRole('superadmin')
    const second = await (await app.container.make(UserService)).create({ email: 'second@example.test', name: 'Second admin', role: 'superadmin', password: TEST_PASSWORD }, null)
    await signInAs(page, 'superadmin')
    await page.goto(gatewayUrl('/accounts'))
    const ownRow = page.locator(`[data-account="${owner.name}"]`)
    const secondRow = page.locator('[data-account="Second admin"]')

    // Two superadmins: one's own account says why it has no Remove; the other one has it.
    await ownRow.getByTestId('no-remove').getByText('Your own account: another superadmin can remove it.').waitFor()
    assert.equal(await ownRow.getByRole('button', { name: 'Remove' }).count(), 0)
    await secondRow.getByRole('button', { name: 'Remove' }).click()
    await page.getByRole('button', { name: 'Remove', exact: true }).last().click()
    await page.getByText('Second admin: removed; their sessions ended.').waitFor()
    assert.isNull(await User.find(second.id))

    // Now the last superadmin: still no Remove, and the reason is the gateway's rule.
    await ownRow.getByTestId('no-remove').getByText('The last superadmin: make another account superadmin first.').waitFor()
    assert.equal(await ownRow.getByRole('button', { name: 'Remove' }).count(), 0)
    assert.equal(await page.getByRole('alert').filter({ hasText: 'Not removed' }).count(), 0)
  })

  test('the pairing dialog copies the code, the commands and the API URL, and at 360 px never breaks the code', async ({ assert }) => {
    const phoneContext = await browsing.browser.newContext({ viewport: { width: 360, height: 740 }, permissions: ['clipboard-read', 'clipboard-write'] })
    try {
      const phonePage = await phoneContext.newPage()
      await signInAs(phonePage, 'operator')
      await phonePage.goto(gatewayUrl('/phones'))
      await phonePage.getByRole('button', { name: 'Pair a phone' }).click()
      const dialog = phonePage.getByRole('dialog')
      const code = (await dialog.getByTestId('pairing-code').innerText()).trim()
      assert.match(code, /^[0-9A-Z]{8}$/)
      const clipboard = async () => String(await phonePage.evaluate('navigator.clipboard.readText()'))
      const copyWith = async (testId: string) => {
        const button = dialog.getByTestId(testId).getByRole('button')
        assert.equal((await button.innerText()).trim(), 'Copy')
        await button.click()
        await dialog.getByTestId(testId).getByText('Copied').waitFor()
        return clipboard()
      }

      // Our agent: the code, then each command, exactly as shown.
      assert.equal(await copyWith('copy-code'), code)
      for (const [command, button] of [['simulator-command', 'copy-simulator-command'], ['agent-command', 'copy-agent-command']]) {
        const shown = dialog.getByTestId(command)
        const text = (await shown.innerText()).trim()
        assert.include(text, `--pair ${code}`)
        assert.equal(await copyWith(button), text)
        // The code is drawn as one piece on one line, and the command does not push the page sideways.
        const token = shown.locator('.token')
        assert.equal((await token.innerText()).trim(), code)
        assert.equal(Number(await token.evaluate((element) => element.getClientRects().length)), 1, `${command}: the code on one line`)
        const box = (await token.boundingBox())!
        assert.isAtLeast(box.width, (await dialog.getByTestId('pairing-code').boundingBox())!.width / 4, 'the whole code is in the box')
      }
      assert.equal(Number(await phonePage.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')), 0)

      // The SMSGate app: its API URL and the code.
      await dialog.getByText('SMSGate app', { exact: true }).click()
      await dialog.getByTestId('smsgate-steps').waitFor()
      const apiUrl = await dialog.getByTestId('smsgate-api-url').inputValue()
      assert.equal(await copyWith('copy-api-url'), apiUrl)
      const appCode = (await dialog.getByTestId('pairing-code').innerText()).trim()
      assert.equal(await copyWith('copy-code'), appCode)
    } finally {
      await phoneContext.close()
    }
  })
})
