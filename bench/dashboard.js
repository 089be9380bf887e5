#!/usr/bin/env node
// The dashboard's first load on loopback, in Debian's Chromium: JavaScript shipped (gzip size
// of every script the page fetched) and the time from navigation to the page answering input,
// for the first page of a fresh gateway (the setup form) and for the Overview once signed in.
// Then the Messages page over BENCH_MESSAGES seeded messages (default 1,000,000): its first
// page, "Load more", and deep pages (a date filter far back, then cursors followed from there),
// timed from the click or navigation to the rows on screen.
//
//   npm run bench:dashboard      (builds, then runs this)
//   CHROMIUM_PATH=/path/to/chromium BENCH_MESSAGES=200000 node bench/dashboard.js
import { gzipSync } from 'node:zlib'
import { chromium } from 'playwright-core'
import { join } from 'node:path'
import { startGateway } from './lib/gateway.js'
import { seedMessages } from './seed_messages.js'

const budgetKb = 300
const messageCount = Number(process.env.BENCH_MESSAGES ?? 1_000_000)
const pageAimMs = 200

/** Milliseconds from `act` to the Messages page saying `shown` (its count of rows on screen). */
async function timeToRows(page, act, shown) {
  const started = performance.now()
  await act()
  await page.getByText(shown, { exact: false }).first().waitFor({ timeout: 60_000 })
  return Math.round(performance.now() - started)
}

/**
 * The Messages page as an operator uses it on a big table. Each figure is the time the browser
 * took from the navigation or click to the rows on screen, and the list request's own time
 * (request sent to answer read, from the browser's resource timing).
 */
async function messagesPage(context, base) {
  const page = await context.newPage()
  const listRequests = []
  page.on('requestfinished', (request) => {
    if (new URL(request.url()).pathname !== '/api/v1/messages') return
    const timing = request.timing()
    listRequests.push(Math.round(timing.responseEnd - timing.requestStart))
  })
  const lastRequestMs = () => listRequests.at(-1)
  const figures = {}
  const measure = async (name, act, shown) => {
    const ms = await timeToRows(page, act, shown)
    figures[name] = { onScreenMs: ms, requestMs: lastRequestMs() }
  }
  const loadMore = () => page.getByRole('button', { name: 'Load more' }).click()

  await measure('first page (50 rows)', () => page.goto(`${base}/messages`), '50 messages shown')
  await measure('Load more (rows 51-100)', loadMore, '100 messages shown')
  // The seed's first day: its newest row sits about 90 % of the table deep (newest first).
  await measure('deep: first page of the oldest day', () => page.goto(`${base}/messages?to=2025-01-01`), '50 messages shown')
  for (let pageNumber = 2; pageNumber <= 20; pageNumber++) {
    await timeToRows(page, loadMore, `${pageNumber * 50} messages shown`)
  }
  await measure('deep: 21st page of the oldest day (cursors followed)', loadMore, '1050 messages shown')
  await measure('filtered: incoming only', () => page.goto(`${base}/messages?direction=in`), '50 messages shown')
  await measure('filtered: one status, none match', () => page.goto(`${base}/messages?status=failed`), 'No message matches')
  await measure('filtered: one category, none match', () => page.goto(`${base}/messages?category=campaign`), 'No message matches')
  await page.close()
  return figures
}

/** Loads `path` in a fresh tab and measures what it fetched until `ready` shows. */
async function firstLoad(context, base, path, ready) {
  const page = await context.newPage()
  const scripts = []
  page.on('response', async (response) => {
    if (response.request().resourceType() !== 'script') return
    const body = await response.body().catch(() => Buffer.alloc(0))
    scripts.push({ url: response.url(), bytes: body.length, gzip: gzipSync(body, { level: 9 }).length })
  })
  const started = performance.now()
  await page.goto(`${base}${path}`)
  await ready(page)
  const interactiveMs = performance.now() - started
  await page.waitForLoadState('networkidle')
  await page.close()
  const sum = (key) => scripts.reduce((total, script) => total + script[key], 0)
  return { scripts: scripts.length, kb: +(sum('bytes') / 1024).toFixed(1), gzipKb: +(sum('gzip') / 1024).toFixed(1), interactiveMs: Math.round(interactiveMs) }
}

let gateway = await startGateway()
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
})
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  const setup = await firstLoad(context, gateway.base, '/', (page) => page.getByRole('button', { name: 'Create the account' }).waitFor())

  const created = await context.request.post(`${gateway.base}/api/v1/auth/setup`, {
    data: { email: 'bench@example.test', password: 'a long bench passphrase', name: 'Bench' },
  })
  if (created.status() !== 201) throw new Error(`setup answered ${created.status()}`)
  const overview = await firstLoad(context, gateway.base, '/', (page) => page.getByTestId('phones-online').waitFor())

  console.log(`bench/dashboard.js: first load on loopback, Chromium, node ${process.version} (JS gzip budget ${budgetKb} KB for the first page)`)
  console.table({ 'first page (setup form)': setup, 'Overview (signed in)': overview })
  console.log(JSON.stringify({ firstPageJsGzipKb: setup.gzipKb, overviewJsGzipKb: overview.gzipKb, withinBudget: Math.max(setup.gzipKb, overview.gzipKb) <= budgetKb }))

  // The same gateway with the messages seeded (the session, stored in the database, stays valid).
  const { dataDir } = gateway
  await gateway.stop({ keepData: true })
  const seedStarted = Date.now()
  await seedMessages(join(dataDir, 'gateway.db'), messageCount)
  const seedSeconds = ((Date.now() - seedStarted) / 1000).toFixed(1)
  gateway = await startGateway({ dataDir })
  const messages = await messagesPage(context, gateway.base)
  console.log(`bench/dashboard.js: the Messages page over ${messageCount} messages (seeded in ${seedSeconds} s), 50 rows a page (aim ${pageAimMs} ms)`)
  console.table(messages)
  console.log(JSON.stringify({ messagesPageSlowestMs: Math.max(...Object.values(messages).map((figure) => figure.onScreenMs)) }))
} finally {
  await browser.close()
  await gateway.stop()
}
