import { test } from '@japa/runner'
import type { Page } from 'playwright-core'
import { TEST_PASSWORD, accountWithRole } from '#tests/helpers/callers'
import { clearDevices } from '#tests/helpers/devices'
import { clearMessaging } from '#tests/helpers/messages'
import { useManualClock } from '#tests/helpers/clock'
import { settle, useDeviceJobs } from '#tests/helpers/phones'
import { phoneWithHeldReceipts } from '#tests/helpers/held_receipts'
import type { PhoneAgent } from '../../agent/src/phone_agent.js'
import { browserForEachTest, gatewayUrl, screenshotsAtBothWidths, signInToOverview } from './browser.js'
import { pairingCodeThroughApi, queueThroughApi, rowOf, rowShows } from './helpers_messages.js'

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
    await drawer.getByText('The phone it was forced to (#999999) was unpaired').waitFor()
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
    await drawer.getByText('The phone it was forced to (#999999) was unpaired').waitFor()
    await rowShows(page, failed, 'failed')
    assert.equal(await page.getByRole('button', { name: 'Retry' }).count(), 0)
    assert.equal(await page.getByRole('button', { name: 'Delete' }).count(), 0)
  })
})
