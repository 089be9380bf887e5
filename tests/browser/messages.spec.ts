import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import type { Locator, Page } from 'playwright-core'
import { MessageLedger } from '#modules/messages/services/message_ledger'
import { TEST_PASSWORD, accountWithRole } from '#tests/helpers/callers'
import { clearDevices } from '#tests/helpers/devices'
import { clearMessaging } from '#tests/helpers/messages'
import { useManualClock } from '#tests/helpers/clock'
import { settle, useDeviceJobs } from '#tests/helpers/phones'
import { phoneWithHeldReceipts } from '#tests/helpers/held_receipts'
import type { PhoneAgent } from '../../agent/src/phone_agent.js'
import { PHONE, browserForEachTest, gatewayUrl, screenshot, screenshotsAtBothWidths, signInAs, signInToOverview } from './browser.js'
import { pairingCodeThroughApi, queueThroughApi, rowOf, rowShows } from './helpers_messages.js'
import { drawnAtRest } from './helpers_axe.js'

/**
 * How far each of the table's scrolling boxes reaches past its own width, in px (0: nothing
 * to scroll sideways to): the table itself, its header and its rows' window.
 */
const sidewaysOverflow = (table: Locator) =>
  table.evaluate((root) =>
    [root, ...root.querySelectorAll('.n-data-table-base-table-header, .n-data-table-base-table-body, .n-scrollbar-container, .v-vl')].map(
      (box) => box.scrollWidth - box.clientWidth
    )
  )

/** How many lines the text of each cell takes: the distinct tops of its text's boxes. */
const linesOfCells = (cells: Locator) =>
  cells.evaluateAll((found) =>
    found.map((cell) => {
      const range = cell.ownerDocument.createRange()
      range.selectNodeContents(cell)
      return new Set(Array.from(range.getClientRects() as ArrayLike<{ top: number }>, (box) => Math.round(box.top))).size
    })
  )

test.group('Messages page in a real browser', (group) => {
  let page: Page
  let clock: ReturnType<typeof useManualClock>['clock']
  let jobs: Awaited<ReturnType<typeof useDeviceJobs>>
  let agents: PhoneAgent[] = []
  // The dispatcher runs on a ManualClock: messages move only when the test lets it.
  const dispatch = () => settle(clock, jobs.runner, jobs.hub, agents)

  const browsing = browserForEachTest(group, { testKeys: true })
  group.each.setup(async () => {
    await clearMessaging()
    await clearDevices()
    const manual = useManualClock(new Date())
    clock = manual.clock
    jobs = await useDeviceJobs(clock)
    agents = []
    page = browsing.page
    return async () => {
      for (const agent of agents) await agent.disconnect()
      await jobs.hub.settled()
      await jobs.stop()
      manual.restore()
    }
  })

  test('filters kept in the address, the reason a message waits, live sent then delivered, retry and delete', async ({ assert }) => {
    const first = await queueThroughApi({ to: '+33611111111' })
    const info = await queueThroughApi({ to: '+33622222222', category: 'info' })
    const later = await queueThroughApi({ to: '+33633333333', scheduledAt: new Date(Date.now() + 3_600_000).toISOString() })
    const nowhere = await queueThroughApi({ to: '+33644444444', deviceId: '999999' })
    await dispatch() // the message forced to a phone that does not exist fails at once

    const account = await accountWithRole('operator')
    await signInToOverview(page, account.email, TEST_PASSWORD)
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('menuitem', { name: 'Messages' }).click()
    await page.getByRole('heading', { name: 'Messages', level: 1 }).waitFor()
    await page.getByText('4 messages shown').waitFor()
    for (const id of [first, info, later]) await rowShows(page, id, 'queued')
    await rowShows(page, nowhere, 'failed')
    // The number as the API gives it.
    await rowOf(page, first).getByText('+33611111111').waitFor()

    // Filters: each applies at once and stays in the address.
    await page.getByLabel('Category').selectOption('info')
    await page.getByText('1 message shown').waitFor()
    await rowOf(page, info).waitFor()
    assert.include(page.url(), 'category=info')
    await page.getByLabel('Category').selectOption('')
    await page.getByLabel('Status').selectOption('failed')
    await page.getByText('1 message shown').waitFor()
    await page.reload()
    await page.getByText('1 message shown').waitFor()
    assert.equal(await page.getByLabel('Status').inputValue(), 'failed')
    await rowOf(page, nowhere).waitFor()
    await page.getByLabel('Direction').selectOption('in')
    await page.getByText('No message matches these filters.').first().waitFor()
    await page.getByRole('button', { name: 'Clear filters' }).click()
    await page.getByText('4 messages shown').waitFor()
    assert.notInclude(page.url(), 'status=')

    // Why the failed one did not leave, then Retry (confirmed): queued again, live.
    await rowOf(page, nowhere).getByRole('link').click()
    const drawer = page.getByTestId('message-panel')
    await drawer.getByText('The phone it was forced to (#999999) is not paired with this gateway').waitFor()
    await drawer.getByRole('button', { name: 'Retry' }).click()
    await page.getByRole('button', { name: 'Retry' }).last().click() // the confirmation's button
    await drawer.getByTestId('detail-status').getByText('Queued').waitFor()
    await rowShows(page, nowhere, 'queued')

    // A scheduled message, and one with no phone to take it.
    await rowOf(page, later).getByRole('link').click()
    await drawer.getByText('Scheduled for').waitFor()
    assert.include(page.url(), `message=${later}`)
    await rowOf(page, first).getByRole('link').click()
    await drawer.getByText('No phone is paired yet').waitFor()
    await drawer.getByText('Queued', { exact: true }).first().waitFor()
    await screenshotsAtBothWidths(page, 'message-detail')

    // A phone arrives: the row turns sent, then delivered, with no reload.
    const phone = await phoneWithHeldReceipts(await pairingCodeThroughApi(), 'Counter phone')
    agents.push(phone.agent)
    await dispatch()
    await rowShows(page, first, 'sent')
    await drawer.getByTestId('detail-status').getByText('Sent').waitFor()
    phone.driver.deliverAll()
    await dispatch()
    await rowShows(page, first, 'delivered')
    await rowShows(page, info, 'delivered')
    await rowShows(page, later, 'queued')
    await drawer.getByTestId('detail-status').getByText('Delivered').waitFor()
    assert.equal(await drawer.getByTestId('why-not-sent').count(), 0)

    // The forced one failed again; it is deleted (confirmed), and leaves the list live.
    await rowShows(page, nowhere, 'failed')
    await rowOf(page, nowhere).getByRole('link').click()
    await drawer.getByRole('button', { name: 'Delete' }).click()
    await page.getByRole('button', { name: 'Delete' }).last().click()
    await page.getByText('3 messages shown').waitFor()
    assert.equal(await rowOf(page, nowhere).count(), 0)
    await drawnAtRest(page) // the deletion's live re-read over: the picture has no spinner over the rows
    await screenshotsAtBothWidths(page, 'messages')
  })

  test("the Overview's message figures follow the live stream, with no reload and no return to the tab", async () => {
    const account = await accountWithRole('readonly')
    await signInToOverview(page, account.email, TEST_PASSWORD)
    const waiting = page.getByTestId('today-waiting').locator('.n-statistic-value')
    await waiting.getByText('0', { exact: true }).waitFor()
    await queueThroughApi({ to: '+33666666666' })
    await queueThroughApi({ to: '+33677777777' })
    await waiting.getByText('2', { exact: true }).waitFor()
    const phone = await phoneWithHeldReceipts(await pairingCodeThroughApi())
    agents.push(phone.agent)
    await dispatch()
    await page.getByTestId('today-sent').locator('.n-statistic-value').getByText('2', { exact: true }).waitFor()
    await waiting.getByText('0', { exact: true }).waitFor()
  })

  test('a read-only account reads messages and their reasons but sees no Retry or Delete', async ({ assert }) => {
    const failed = await queueThroughApi({ to: '+33655555555', deviceId: '999999' })
    await dispatch()
    const account = await accountWithRole('readonly')
    await signInToOverview(page, account.email, TEST_PASSWORD)
    await page.goto(gatewayUrl(`/messages?message=${failed}`))
    const drawer = page.getByTestId('message-panel')
    await drawer.getByText('The phone it was forced to (#999999) is not paired with this gateway').waitFor()
    await rowShows(page, failed, 'failed')
    assert.equal(await page.getByRole('button', { name: 'Retry' }).count(), 0)
    assert.equal(await page.getByRole('button', { name: 'Delete' }).count(), 0)
  })

  test('at 1280 px every column of a row is in sight with no sideways scroll and each date on one line; at 360 px two columns', async ({ assert }) => {
    const long = 'Your order 4417 has left our warehouse and reaches you tomorrow between 9 and 12; reply STOP to opt out of these updates'
    const ids: string[] = []
    for (const category of ['transactional', 'conversation', 'info', 'campaign']) ids.push(await queueThroughApi({ to: '+4915112345678', body: long, category }))
    const failed = await queueThroughApi({ to: '+33644444444', body: long, deviceId: '999999' })
    await dispatch() // forced to a phone that does not exist: fails at once
    // The longest status word, and a date as long as the locale writes one (two-digit month,
    // day and hour, with seconds).
    await (await app.container.make(MessageLedger)).waitForQuota([Number(ids[3])], new Date())
    await db.from('messages').where('id', ids[0]).update({ created_at: new Date(2026, 9, 28, 10, 58, 58).toISOString() })

    await signInAs(page, 'operator')
    await page.goto(gatewayUrl('/messages'))
    await page.getByText('5 messages shown').waitFor()
    await rowShows(page, ids[3], 'pending_quota_exceeded')
    await rowShows(page, failed, 'failed')
    const table = page.getByTestId('messages-table')
    assert.deepEqual(
      (await sidewaysOverflow(table)).filter((overflow) => overflow > 0),
      [],
      'nothing to scroll sideways to at 1280 px'
    )
    // Every header cell, Category the last, lies inside the table's box.
    const tableBox = (await table.boundingBox())!
    const headers = await table.locator('th').evaluateAll((cells) => cells.map((cell) => ({ text: cell.textContent!.trim(), right: cell.getBoundingClientRect().right })))
    assert.deepEqual(headers.map((header) => header.text).slice(1), ['Created', 'Direction', 'Number', 'Text', 'Status', 'Phone', 'Category'])
    for (const header of headers) assert.isAtMost(header.right, tableBox.x + tableBox.width + 0.5, `${header.text} is in sight`)
    for (const id of [...ids, failed]) {
      const row = rowOf(page, id)
      assert.deepEqual(await linesOfCells(row.locator('td').nth(1)), [1], `the Created cell of message ${id} is one line`)
      // The text is cut at the column's edge rather than wrapped.
      assert.deepEqual(await linesOfCells(row.locator('td.text')), [1], `the Text cell of message ${id} is one line`)
    }

    await screenshot(page, 'messages-columns')

    // At phone width the rows keep their two columns (what and when, then the status) and still
    // do not scroll sideways.
    await page.setViewportSize(PHONE)
    await table.locator('th').filter({ hasText: /^Message$/ }).waitFor()
    assert.deepEqual((await table.locator('th').allTextContents()).map((text) => text.trim()).slice(1), ['Message', 'Status'])
    assert.deepEqual(
      (await sidewaysOverflow(table)).filter((overflow) => overflow > 0),
      [],
      'nothing to scroll sideways to at 360 px'
    )
  })
})
