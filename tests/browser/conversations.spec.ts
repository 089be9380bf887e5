import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import type { Page } from 'playwright-core'
import { TEST_PASSWORD, accountWithRole, useTestKeys } from '#tests/helpers/callers'
import { clearDevices } from '#tests/helpers/devices'
import { eventually } from '#tests/helpers/phones'
import { clearMessaging } from '#tests/helpers/messages'
import type { PhoneAgent } from '../../agent/src/phone_agent.js'
import { browserForEachTest, PHONE, screenshot, screenshotsAtBothWidths, signInThroughThePage } from './browser.js'
import { connectedSimulatedPhone, conversationOf, inboxRows, sidewaysOverflow } from './helpers_conversations.js'

const ADA = '+33612345678'
const BOB = '+447911123456'
const CAROL = '+33698765432'

test.group('Conversations page in a real browser', (group) => {
  let page: Page
  const agents: PhoneAgent[] = []

  const browsing = browserForEachTest(group)
  group.each.setup(async () => {
    await clearMessaging()
    await clearDevices()
    await useTestKeys()
    page = browsing.page
    return async () => {
      for (const agent of agents.splice(0)) await agent.disconnect()
    }
  })

  test('an operator reads received SMS as unread, opens a thread, replies, assigns, pins and archives', async ({ assert }) => {
    const phone = await connectedSimulatedPhone()
    agents.push(phone.agent)
    await phone.receive(ADA, 'Is my table for four ready?')
    await phone.receive(BOB, 'Running 10 minutes late, sorry')
    const operator = await accountWithRole('operator')
    const colleague = await accountWithRole('superadmin')

    await signInThroughThePage(page, operator.email, TEST_PASSWORD, '/conversations')
    await page.getByRole('heading', { name: 'Conversations', level: 1 }).waitFor()
    const list = page.getByRole('list', { name: 'Conversations' })
    const row = (phoneNumber: string) => list.locator(`[data-conversation="${phoneNumber}"]`)
    await row(BOB).waitFor()
    // Latest activity first, both unread and awaiting a reply.
    assert.deepEqual(await inboxRows(page), [BOB, ADA])
    await row(ADA).getByText('1 unread').waitFor()
    await row(BOB).getByText('1 unread').waitFor()
    assert.include(await row(ADA).innerText(), 'Awaiting reply')

    // Opening the thread shows the message and marks the conversation read.
    await row(ADA).click()
    const thread = page.getByRole('region', { name: `Conversation with ${ADA}` })
    await thread.getByText('Is my table for four ready?').waitFor()
    await row(ADA).getByText('1 unread').waitFor({ state: 'detached' })
    assert.equal((await conversationOf(ADA)).unread_count, 0)
    assert.equal(new URL(page.url()).searchParams.get('c'), String((await conversationOf(ADA)).id))

    // The Unread tab now lists only Bob.
    await page.getByRole('radio', { name: 'Unread' }).check({ force: true })
    await row(ADA).waitFor({ state: 'detached' })
    assert.deepEqual(await inboxRows(page), [BOB])
    await page.getByRole('radio', { name: 'All' }).check({ force: true })
    await row(ADA).waitFor()

    // A reply: category conversation, to the conversation's number, seen in the thread below the question.
    await thread.getByLabel('Reply', { exact: true }).fill('Yes, table 4 is ready for you')
    await thread.getByLabel('Reply', { exact: true }).press('Enter')
    await thread.getByText('Yes, table 4 is ready for you').waitFor()
    const bubbles = await thread.getByRole('list', { name: 'Messages, oldest first' }).locator('[data-message]').allInnerTexts()
    assert.lengthOf(bubbles, 2)
    assert.include(bubbles[0], 'Is my table for four ready?')
    assert.include(bubbles[1], 'Yes, table 4 is ready for you')
    assert.equal(await thread.getByLabel('Reply', { exact: true }).inputValue(), '')
    const reply = await db.from('messages').where('direction', 'out').first()
    assert.deepInclude(reply, { phone: ADA, category: 'conversation', body: 'Yes, table 4 is ready for you' })
    // The outgoing message shows its status.
    assert.match(bubbles[1], /Queued|On a phone|Sent|Delivered/)
    await row(ADA).getByText('Last message sent').waitFor()

    // A colleague is offered by name (GET /users/assignable); then back to oneself.
    await thread.getByLabel('Assign to').selectOption({ label: colleague.name })
    await thread.getByText(`assigned to ${colleague.name}`).waitFor()
    assert.equal(String((await conversationOf(ADA)).assigned_to), String(colleague.id))
    await thread.getByLabel('Assign to').selectOption({ label: `${operator.name} (you)` })
    await thread.getByText('assigned to you').waitFor()
    await row(ADA).getByText('Assigned to you').waitFor()
    assert.equal(String((await conversationOf(ADA)).assigned_to), String(operator.id))
    await screenshotsAtBothWidths(page, 'conversations')

    // Pinned first: Bob, older now, climbs above Ada once pinned.
    await row(BOB).click()
    const bobThread = page.getByRole('region', { name: `Conversation with ${BOB}` })
    await bobThread.getByText('Running 10 minutes late, sorry').waitFor()
    assert.deepEqual(await inboxRows(page), [ADA, BOB])
    await bobThread.getByRole('button', { name: 'Pin', exact: true }).click()
    await bobThread.getByRole('button', { name: 'Unpin' }).waitFor()
    await row(BOB).getByText('pinned').waitFor()
    // The mark in the shared words (labels.ts), in the row and over the thread.
    assert.equal((await row(BOB).locator('.n-tag').first().innerText()).trim(), 'Pinned')
    assert.include(await bobThread.locator('.n-tag').allInnerTexts(), 'Pinned')
    assert.deepEqual(await inboxRows(page), [BOB, ADA])

    // Archived: gone from the Awaiting reply tab, found under Archived.
    await bobThread.getByRole('button', { name: 'Archive', exact: true }).click()
    await bobThread.getByRole('button', { name: 'Unarchive' }).waitFor()
    await page.getByRole('radio', { name: 'Awaiting reply' }).check({ force: true })
    await page.getByText('No conversation awaits a reply.').waitFor()
    await page.getByRole('radio', { name: 'Archived' }).check({ force: true })
    await row(BOB).waitFor()
    assert.deepEqual(await inboxRows(page), [BOB])
    assert.includeMembers(await row(BOB).locator('.n-tag').allInnerTexts(), ['Pinned', 'Archived'])
    assert.isTrue(Boolean((await conversationOf(BOB)).archived))

    // Without the live channel, coming back to the tab reads the inbox again.
    await page.getByRole('radio', { name: 'All' }).check({ force: true })
    await row(ADA).waitFor()
    await phone.receive(CAROL, 'Do you have a table tonight?')
    await page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    await row(CAROL).getByText('1 unread').waitFor()
    assert.deepEqual(await inboxRows(page), [BOB, CAROL, ADA])
  })

  test('at 360 px the list and the thread are two screens: list, thread, back', async ({ assert }) => {
    const phone = await connectedSimulatedPhone()
    agents.push(phone.agent)
    await phone.receive(ADA, 'Is my table for four ready?')
    await phone.receive(BOB, 'Running 10 minutes late, sorry')
    const operator = await accountWithRole('operator')
    await page.setViewportSize(PHONE)
    await signInThroughThePage(page, operator.email, TEST_PASSWORD, '/conversations')
    const list = page.getByRole('list', { name: 'Conversations' })
    await list.locator(`[data-conversation="${ADA}"]`).waitFor()
    assert.equal(await sidewaysOverflow(page), 0)
    await screenshot(page, 'conversations-list')

    await list.locator(`[data-conversation="${ADA}"]`).click()
    const thread = page.getByRole('region', { name: `Conversation with ${ADA}` })
    await thread.getByText('Is my table for four ready?').waitFor()
    assert.equal(await list.count(), 0)
    assert.equal(await sidewaysOverflow(page), 0)
    await thread.getByLabel('Reply', { exact: true }).waitFor()
    await thread.getByRole('button', { name: 'Archive', exact: true }).waitFor()

    await thread.getByRole('button', { name: '← Conversations' }).click()
    await list.locator(`[data-conversation="${BOB}"]`).waitFor()
    assert.equal(await thread.count(), 0)
    // The phone's own back button works the same way.
    await list.locator(`[data-conversation="${BOB}"]`).click()
    await page.getByRole('region', { name: `Conversation with ${BOB}` }).waitFor()
    await page.goBack()
    await list.waitFor()
  })

  test('a read-only account reads the inbox and threads but sees no reply box and no action button, and leaves them unread', async ({ assert }) => {
    const phone = await connectedSimulatedPhone()
    agents.push(phone.agent)
    await phone.receive(ADA, 'Is my table for four ready?')
    const reader = await accountWithRole('readonly')
    await signInThroughThePage(page, reader.email, TEST_PASSWORD)
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    await page.getByRole('navigation', { name: 'Pages' }).getByText('Conversations').click()
    const row = page.getByRole('list', { name: 'Conversations' }).locator(`[data-conversation="${ADA}"]`)
    await row.click()
    const thread = page.getByRole('region', { name: `Conversation with ${ADA}` })
    await thread.getByText('Is my table for four ready?').waitFor()
    await thread.getByText('Awaiting reply').waitFor()

    assert.equal(await page.getByLabel('Reply', { exact: true }).count(), 0)
    assert.equal(await page.getByLabel('Assign to').count(), 0)
    assert.equal(await page.locator('main').getByRole('button').filter({ hasNotText: /^Show (more|older)/ }).count(), 0)
    assert.equal((await conversationOf(ADA)).unread_count, 1)
    await row.getByText('1 unread').waitFor()
  })

  test('an SMS arriving in the open conversation shows in its thread without a reload (messages channel) and is marked read', async ({ assert }) => {
    const phone = await connectedSimulatedPhone()
    agents.push(phone.agent)
    await phone.receive(ADA, 'Is my table for four ready?')
    const operator = await accountWithRole('operator')
    let subscribed = false
    page.on('response', (response) => {
      if (response.url().endsWith('/__transmit/subscribe') && response.status() === 204 && response.request().postData()?.includes('"messages"')) subscribed = true
    })
    await signInThroughThePage(page, operator.email, TEST_PASSWORD, '/conversations')
    const list = page.getByRole('list', { name: 'Conversations' })
    await list.locator(`[data-conversation="${ADA}"]`).click()
    const thread = page.getByRole('region', { name: `Conversation with ${ADA}` })
    await thread.getByText('Is my table for four ready?').waitFor()
    while (!subscribed) await page.waitForTimeout(20)

    // The phone reports a second SMS: the messages channel names the conversation, the open
    // thread reads itself again.
    await phone.receive(ADA, 'We are five now')
    await thread.getByText('We are five now').waitFor()
    assert.equal(await thread.getByText('Is my table for four ready?').count(), 1, 'the thread is read again, not appended twice')
    // Seen in the open thread, so read at once.
    await eventually(async () => (await conversationOf(ADA)).unread_count === 0)
  })
})
