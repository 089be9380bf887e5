#!/usr/bin/env node
// The dashboard's first load on loopback, in Debian's Chromium: JavaScript shipped (gzip size
// of every script the page fetched) and the time from navigation to the page answering input,
// for the first page of a fresh gateway (the setup form) and for the Overview once signed in.
//
//   npm run bench:dashboard      (builds, then runs this)
//   CHROMIUM_PATH=/path/to/chromium node bench/dashboard.js
import { gzipSync } from 'node:zlib'
import { chromium } from 'playwright-core'
import { startGateway } from './lib/gateway.js'

const budgetKb = 300

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

const gateway = await startGateway()
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
} finally {
  await browser.close()
  await gateway.stop()
}
