import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import app from '@adonisjs/core/services/app'
import type { Page } from 'playwright-core'
import { SettingsStore } from '#core/settings/settings_store'
import { MessageLedger, type PhoneReport } from '#modules/messages/services/message_ledger'
import { testKeys } from '#tests/helpers/callers'
import { useManualClock } from '#tests/helpers/clock'
import { clearMessaging } from '#tests/helpers/messages'
import { clearDevices } from '#tests/helpers/devices'
import { pairingCodeThroughApi, queueThroughApi } from './helpers_messages.js'
import { browserForEachTest, DESKTOP, gatewayUrl, PHONE, screenshotsAtBothWidths, signInAs } from './browser.js'

const ZONE = 'Europe/Paris'
const DAY_MS = 24 * 60 * 60 * 1000

/** A phone paired through the API as the agent pairs (it never connects: its orders are written below). */
async function pairThroughApi(name: string, sims: Array<{ slot: number; operator: string }>): Promise<number> {
  const response = await fetch(gatewayUrl('/api/v1/devices/pair'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: await pairingCodeThroughApi(), name, model: 'Pixel 7', appVersion: '1.0.0', sims }),
  })
  if (response.status !== 201) throw new Error(`POST /devices/pair answered ${response.status}: ${await response.text()}`)
  return Number(((await response.json()) as { device: { id: string } }).device.id)
}

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(gatewayUrl(path), {
    method,
    redirect: 'manual',
    headers: { 'content-type': 'application/json', 'x-api-key': testKeys.admin },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (response.status >= 400) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`)
  return response
}

type Outcome = { result: 'delivered' } | { result: 'sent' } | { result: 'failed'; errorCode: string }

/**
 * Messages queued through the API on a phone's SIM at `createdAt` (the gateway's clock, swapped
 * for the time of the request), then taken to their outcome by the message ledger, as the
 * phone's reports would: handed over 1 s after acceptance, sent 1.5 s after it, delivered 25 s
 * after that.
 */
/** Recipients numbered in order: a device's id grows across a whole test run, so it cannot be in the number. */
let nextRecipient = 0

async function sendThrough(deviceId: number, simSlot: 0 | 1, outcomes: Outcome[], createdAt: Date) {
  const manual = useManualClock(createdAt)
  const ids: number[] = []
  try {
    for (const _outcome of outcomes) ids.push(Number(await queueThroughApi({ to: `+3361234${String(5000 + (nextRecipient++ % 5000)).padStart(4, '0')}`, deviceId: String(deviceId), simSlot })))
  } finally {
    manual.restore()
  }
  const ledger = await app.container.make(MessageLedger)
  const at = (seconds: number) => new Date(createdAt.getTime() + seconds * 1000)
  await ledger.storeOrders(ids.map((messageId) => ({ messageId, deviceId, simSlot, text: 'Your table is ready' })), at(1))
  const reports: PhoneReport[] = ids.flatMap((messageId, index): PhoneReport[] => {
    const outcome = outcomes[index]
    if (outcome.result === 'failed') return [{ kind: 'failed', deviceId, messageId, at: at(3), errorCode: outcome.errorCode, maxAttempts: 1, retryable: false }]
    const sent: PhoneReport = { kind: 'sent', deviceId, messageId, at: at(1.5) }
    return outcome.result === 'delivered' ? [sent, { kind: 'delivered', deviceId, messageId, at: at(26.5) }] : [sent]
  })
  const recorded = await ledger.recordReports(reports)
  await recorded.announce()
}

const times = (n: number, outcome: Outcome) => Array.from({ length: n }, () => outcome)
const delivered: Outcome = { result: 'delivered' }

/** Today's local date in the platform's zone, and a day so many days from it. */
function localDate(offsetDays = 0): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date())
  const day = new Date(`${parts}T00:00:00Z`)
  day.setUTCDate(day.getUTCDate() + offsetDays)
  return day.toISOString().slice(0, 10)
}

/**
 * Elements of the page's main area that reach beyond the viewport's sides. The figures under a
 * closed "Figures" are not shown, and an open one scrolls in its own box (.table-wrap).
 */
async function offScreen(page: Page): Promise<string[]> {
  // A string, as the other specs pass: the test process has no DOM types.
  return page.evaluate(`(() => {
    const width = document.documentElement.clientWidth
    return Array.from(document.querySelectorAll('main *'))
      .filter((element) => {
        if (element.closest('.table-wrap')) return false
        const box = element.getBoundingClientRect()
        return box.width > 0 && box.height > 0 && (box.right > width + 1 || box.left < -1)
      })
      .map((element) => element.tagName.toLowerCase() + '.' + element.className + ' (' + Math.round(element.getBoundingClientRect().left) + '–' + Math.round(element.getBoundingClientRect().right) + ')')
  })()`) as Promise<string[]>
}

test.group('Statistics page in a real browser', (group) => {
  let page: Page
  let zoneBefore: string

  // A browser far from the platform's zone: the page's days are Paris's (for 13 hours of each
  // day, today in Kiritimati is already tomorrow in Paris).
  const browsing = browserForEachTest(group, { testKeys: true, context: { timezoneId: 'Pacific/Kiritimati' } })
  group.each.setup(async () => {
    await clearMessaging()
    for (const table of ['link_click_counts', 'contact_opt_changes']) await db.from(table).delete()
    await clearDevices()
    const settings = await app.container.make(SettingsStore)
    zoneBefore = (await settings.get('sending')).timezone
    await settings.update({ sending: { timezone: ZONE } })
    page = browsing.page
    return async () => {
      await settings.update({ sending: { timezone: zoneBefore } })
    }
  })

  test('the seeded figures by phone, SIM, failure code and latency, a new message counted live; presets, dates and by hour change the address and the figures; a reload keeps them; nothing off screen at 360 px', async ({ assert }) => {
    const shop = await pairThroughApi('Shop phone', [
      { slot: 0, operator: 'Orange' },
      { slot: 1, operator: 'Free' },
    ])
    const office = await pairThroughApi('Back office', [{ slot: 0, operator: 'SFR' }])
    const now = new Date()
    // Today: 6 delivered, 3 failed (NO_SERVICE twice, RADIO_OFF once), 1 sent with no receipt.
    await sendThrough(shop, 0, [...times(4, delivered), { result: 'failed', errorCode: 'NO_SERVICE' }, { result: 'sent' }], now)
    await sendThrough(shop, 1, [delivered, { result: 'failed', errorCode: 'NO_SERVICE' }], now)
    await sendThrough(office, 0, [delivered, { result: 'failed', errorCode: 'RADIO_OFF' }], now)
    // Twelve days ago: 5 more delivered on the shop's first SIM (in 30 days, not in 7).
    await sendThrough(shop, 0, times(5, delivered), new Date(now.getTime() - 12 * DAY_MS))
    // Two SMS received today, a message waiting for a phone, a short link clicked twice, an opt-out.
    const ledger = await app.container.make(MessageLedger)
    for (const ref of ['in-1', 'in-2']) await ledger.storeInbound({ deviceId: shop, ref, phone: '+33698765432', body: 'Hello', simSlot: 0, receivedAt: now, at: now })
    await queueThroughApi({ to: '+33611111111', body: 'Offer: https://example.org/offer', shortenLinks: true })
    const link = await db.from('links').first()
    for (let click = 0; click < 2; click++) await api('GET', `/l/${link.code}`)
    await api('POST', '/api/v1/contacts', { phone: '+33622222222', firstName: 'Leaving', blacklisted: true })

    await signInAs(page, 'operator')
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('menuitem', { name: 'Statistics' }).click()
    await page.getByRole('heading', { name: 'Statistics', level: 1 }).waitFor()
    await page.getByText(`Days and hours of ${ZONE}`).waitFor()
    assert.equal(await page.getByLabel('From').inputValue(), localDate(-6))
    assert.equal(await page.getByLabel('To (included)').inputValue(), localDate())

    // Delivery rate: 6 of 10 messages with an outcome.
    await page.getByTestId('delivery-rate-total').getByText('60%').waitFor()
    const rateChart = page.getByTestId('delivery-rate').locator('canvas')
    assert.match((await rateChart.getAttribute('aria-label'))!, /Delivery rate per day, .*: 60% over the range/)
    // Failure reasons, the most frequent first.
    const reasons = page.getByTestId('failure-reasons').locator('tbody tr')
    assert.deepEqual(await reasons.locator('th').allInnerTexts(), ['NO_SERVICE', 'RADIO_OFF'])
    assert.deepEqual(await reasons.locator('td').allInnerTexts(), ['2', '1'])
    // Per phone, per SIM: names from GET /devices.
    const shopRow = page.getByTestId('by-phone').locator('[data-group="Shop phone"] td')
    assert.deepEqual(await shopRow.allInnerTexts(), ['8', '5', '2', '62.5%', '2'])
    const officeRow = page.getByTestId('by-phone').locator('[data-group="Back office"] td')
    assert.deepEqual(await officeRow.allInnerTexts(), ['2', '1', '1', '50%', '0'])
    await page.getByTestId('by-phone').locator('[data-group="No phone yet (waiting)"]').waitFor()
    const simRow = page.getByTestId('by-sim').locator('[data-group="Shop phone · SIM 2 (Free)"] td')
    assert.deepEqual(await simRow.allInnerTexts(), ['2', '1', '1', '50%', '0'])
    // Latency in words.
    assert.deepEqual(await page.locator('[data-stage="to-sent"] td').allInnerTexts(), ['7', '1–2 s', '1–2 s'])
    assert.deepEqual(await page.locator('[data-stage="to-delivered"] td').allInnerTexts(), ['6', '20–30 s', '20–30 s'])
    // Received, clicks, opt-outs.
    await page.getByTestId('volume-in').getByText('2 messages received by the phones.').waitFor()
    await page.getByTestId('links').getByText('2 clicks in the range.').waitFor()
    await page.getByTestId('links').getByRole('link', { name: 'https://example.org/offer' }).waitFor()
    await page.getByTestId('opt-outs').getByText('1 number opted out, 0 back in.').waitFor()
    assert.match((await page.getByTestId('volume-out').locator('canvas').getAttribute('aria-label'))!, /Outgoing messages per day, .*: 11 in all, 6 delivered, 1 sent, 1 queued, 3 failed\./)

    // A message queued meanwhile is counted without a reload (the `messages` channel).
    await queueThroughApi({ to: '+33633333333' })
    await page.getByTestId('volume-out').getByText('12 messages created in the range').waitFor()

    // 30 days: the address says so, and the older messages count.
    await page.getByRole('button', { name: '30 days' }).click()
    await page.getByTestId('delivery-rate-total').getByText('73.3%').waitFor()
    assert.deepEqual(Object.fromEntries(new URL(page.url()).searchParams), { from: localDate(-29), to: localDate(), interval: 'day' })
    assert.equal(await page.getByRole('button', { name: '30 days' }).getAttribute('aria-pressed'), 'true')
    assert.deepEqual(await page.getByTestId('by-phone').locator('[data-group="Shop phone"] td').allInnerTexts(), ['13', '10', '2', '76.9%', '2'])
    await page.mouse.move(0, 0) // no button left hovered in the pictures
    await screenshotsAtBothWidths(page, 'statistics')

    // Nothing beyond the sides of a phone's screen.
    await page.setViewportSize(PHONE)
    await page.waitForTimeout(300)
    assert.deepEqual(await offScreen(page), [])
    await page.setViewportSize(DESKTOP)

    // Today, by hour.
    await page.getByRole('button', { name: 'Today' }).click()
    await page.waitForURL((url) => url.searchParams.get('interval') === 'hour')
    assert.deepEqual(Object.fromEntries(new URL(page.url()).searchParams), { from: localDate(), to: localDate(), interval: 'hour' })
    await page.getByTestId('delivery-rate-total').getByText('60%').waitFor()
    await page.getByTestId('volume-out').locator('canvas[aria-label^="Outgoing messages per hour"]').waitFor()
    await page.mouse.move(0, 0)
    await screenshotsAtBothWidths(page, 'statistics-today')
    // By hour over more than 7 days is not offered; a longer range goes back to by day.
    await page.getByLabel('From').fill(localDate(-9))
    await page.waitForURL((url) => url.searchParams.get('from') === localDate(-9))
    assert.equal(new URL(page.url()).searchParams.get('interval'), 'day')
    assert.isTrue(await page.getByRole('option', { name: 'By hour (7 days at most)' }).isDisabled())

    // A range of days with nothing: said in words; a reload keeps it.
    await page.getByLabel('To (included)').fill(localDate(-40))
    await page.waitForURL((url) => url.searchParams.get('to') === localDate(-40))
    assert.deepEqual(Object.fromEntries(new URL(page.url()).searchParams), { from: localDate(-40), to: localDate(-40), interval: 'day' })
    await page.getByText('No message sent in this range.').waitFor()
    await page.reload()
    await page.getByRole('heading', { name: 'Statistics', level: 1 }).waitFor()
    assert.equal(await page.getByLabel('From').inputValue(), localDate(-40))
    await page.getByText('No message left a phone in this range: no delivery rate.').waitFor()
    await page.getByText('No message failed in this range.').waitFor()
    await page.getByText('No message received in this range.').waitFor()
    await page.getByText('No message went through a phone in this range.').waitFor()
    await page.getByText('No short link was clicked in this range.').waitFor()
    await page.getByText('No number opted out or back in during this range.').waitFor()
  })
})
