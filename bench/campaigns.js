#!/usr/bin/env node
// Campaigns end to end on the compiled gateway, loopback only, with the repo's simulated phones.
// Measures, in one run:
//   - launch of a 100,000-contact group campaign: the launch answer time, the time until every
//     recipient is resolved (counts.total), the gateway's RSS idle and at its peak meanwhile;
//   - sending it with 10 phones and no throttle: recipients sent per second, beside the
//     single-recipient POST /messages end-to-end rate (as bench/phones.js) in the same run;
//   - a throttle of 600 per minute held: messages materialised per whole minute;
//   - first, the import of a 100,000-row CSV of contacts: upload to completed.
//
//   node ace build && node bench/campaigns.js
//   BENCH_CAMPAIGN_RECIPIENTS=20000 BENCH_THROTTLE_MINUTES=2 node bench/campaigns.js
//   BENCH_ONLY_LAUNCH=1 node bench/campaigns.js     (the launch figures only, half a minute)
//   BENCH_ONLY_IMPORT=1 node bench/campaigns.js     (the CSV import figure only)
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import sqlite3 from 'sqlite3'
import { createApiKey, load, seconds, startGateway, summary, countRows } from './lib/gateway.js'
import { PhoneAgent } from '../build/agent/src/phone_agent.js'
import { SimulatorDriver } from '../build/agent/src/drivers/simulator.js'

const PHONES = 10
const RECIPIENTS = Number(process.env.BENCH_CAMPAIGN_RECIPIENTS ?? 100_000)
const THROTTLE = 600
const THROTTLE_MINUTES = Number(process.env.BENCH_THROTTLE_MINUTES ?? 3)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const rssMb = (pid) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024)

/** contacts +3370000000.. and one group holding them all, written by SQLite itself beside the running gateway. */
function seedAudience(file, count) {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, (openError) => {
      if (openError) return reject(openError)
      db.exec(
        `PRAGMA busy_timeout = 10000;
         BEGIN;
         WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ${count - 1})
         INSERT INTO contacts (phone, first_name, tags, fields, blacklisted, created_at, updated_at)
           SELECT printf('+3370%07d', n), 'Guest' || n, '[]', '{"city":"Paris"}', 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM seq;
         INSERT INTO contact_groups (name, created_at, updated_at) VALUES ('bench everyone', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
         INSERT INTO contact_group_members (group_id, contact_id, added_at)
           SELECT (SELECT id FROM contact_groups WHERE name = 'bench everyone'), id, '2026-01-01T00:00:00.000Z' FROM contacts WHERE phone LIKE '+3370%';
         COMMIT;`,
        (error) => db.close(() => (error ? reject(error) : resolve()))
      )
    })
  })
}

const IMPORT_ROWS = 100_000

/**
 * A 100,000-row CSV (numbers, names, a city, tags) uploaded and imported through the API:
 * milliseconds from the upload's first byte to the import completed, and the counts it answered.
 */
async function measureImport(gateway, admin, api) {
  const file = join(gateway.dataDir, 'bench-import.csv')
  const lines = ['Mobile,First name,Last name,City,Tags']
  for (let n = 0; n < IMPORT_ROWS; n++) lines.push(`+3375${String(n).padStart(7, '0')},Guest${n},Family${n % 500},City${n % 40},vip;bench`)
  writeFileSync(file, `${lines.join('\n')}\n`)
  const form = new FormData()
  form.append('file', new Blob([readFileSync(file)]), 'bench.csv')
  const started = performance.now()
  const uploaded = await fetch(`${gateway.base}/api/v1/contacts/imports`, { method: 'POST', headers: { 'x-api-key': admin }, body: form })
  if (uploaded.status !== 201) throw new Error(`upload answered ${uploaded.status}: ${await uploaded.text()}`)
  const { id } = await uploaded.json()
  const uploadedMs = performance.now() - started
  await api('POST', `/contacts/imports/${id}/start`, { mapping: { phone: 'Mobile', firstName: 'First name', lastName: 'Last name', tags: 'Tags', fields: { city: 'City' } } })
  for (;;) {
    const state = await api('GET', `/contacts/imports/${id}`)
    if (state.status === 'completed' || state.status === 'failed') return { uploadedMs, completedMs: performance.now() - started, ...state, columns: undefined, sample: undefined }
    if (performance.now() - started > 300_000) throw new Error('the import did not end within 5 minutes')
    await sleep(100)
  }
}

const gateway = await startGateway()
const agents = []
try {
  const admin = await createApiKey(gateway.base, 'admin', 'bench admin')
  const headers = { 'content-type': 'application/json', 'x-api-key': admin }
  const api = async (method, path, body) => {
    const answer = await fetch(`${gateway.base}/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    if (answer.status >= 400) throw new Error(`${method} ${path} answered ${answer.status}: ${await answer.text()}`)
    return answer.status === 204 ? null : answer.json()
  }
  // The launch's memory is measured against a gateway that did nothing else before (no import).
  if (!process.env.BENCH_ONLY_LAUNCH) {
    const imported = await measureImport(gateway, admin, api)
    console.table([{ name: `import of a ${IMPORT_ROWS.toLocaleString('en')}-row CSV`, uploadedMs: Math.round(imported.uploadedMs), completedMs: Math.round(imported.completedMs), created: imported.created, invalid: imported.invalid, status: imported.status }])
    if (process.env.BENCH_ONLY_IMPORT) {
      await gateway.stop()
      process.exit(0)
    }
  }
  // The bench runs at any hour: no night pause.
  await api('PATCH', '/settings', { sending: { nightPauseEnabled: false } })
  await seedAudience(join(gateway.dataDir, 'gateway.db'), RECIPIENTS)
  const groups = await api('GET', '/groups?limit=10').catch(() => null)
  const groupId = groups?.data?.find((group) => group.name === 'bench everyone')?.id ?? '1'
  await sleep(2000)
  const idleRss = rssMb(gateway.pid)

  // 1. Launch with no phone connected: answer time, resolution time, RSS while resolving.
  const campaign = await api('POST', '/campaigns', { name: 'bench 100k', body: 'Hello {{firstName}} from {{city}}', audience: { groupIds: [groupId] } })
  let launchRss = idleRss
  const launchStarted = performance.now()
  await api('POST', `/campaigns/${campaign.id}/launch`)
  const launchAnswerMs = performance.now() - launchStarted
  let resolvedMs = null
  for (;;) {
    const state = await api('GET', `/campaigns/${campaign.id}`)
    launchRss = Math.max(launchRss, rssMb(gateway.pid))
    if (state.counts.total === RECIPIENTS) {
      resolvedMs = performance.now() - launchStarted
      break
    }
    if (performance.now() - launchStarted > 120_000) break
    await sleep(50)
  }
  await sleep(2000)
  launchRss = Math.max(launchRss, rssMb(gateway.pid))

  if (process.env.BENCH_ONLY_LAUNCH) {
    console.table([{ name: 'launch', answerMs: Math.round(launchAnswerMs), resolvedMs: Math.round(resolvedMs), idleRss, launchRss }])
    await gateway.stop()
    process.exit(0)
  }

  // 2. The phones connect and send it, no throttle.
  const drivers = []
  for (let index = 0; index < PHONES; index++) {
    const { code } = await api('POST', '/devices/pairing-codes', {})
    const driver = new SimulatorDriver({ deliveryRate: 0 })
    const paired = await PhoneAgent.pair(gateway.base, code, { name: `bench phone ${index}`, sims: driver.sims() })
    const agent = new PhoneAgent({ gatewayUrl: gateway.base, credential: paired.credential, driver })
    await agent.connect()
    agents.push(agent)
    drivers.push(driver)
  }
  let peakRss = launchRss
  const sendStarted = performance.now()
  const deadline = performance.now() + 30 * 60_000
  let state
  for (;;) {
    state = await api('GET', `/campaigns/${campaign.id}`)
    peakRss = Math.max(peakRss, rssMb(gateway.pid))
    if (state.status === 'completed' || performance.now() > deadline) break
    await sleep(200)
  }
  const campaignSeconds = (performance.now() - sendStarted) / 1000
  const campaignSent = state.counts.sent + state.counts.delivered

  // 3. Single-recipient sends through the same phones, as bench/phones.js measures them.
  let counter = 0
  const storedSent = () => countRows(gateway.dataDir, "SELECT COUNT(*) AS count FROM messages WHERE status IN ('sent', 'delivered') AND campaign_id IS NULL")
  const loadStarted = performance.now()
  const sends = await load({
    url: `${gateway.base}/api/v1/messages`,
    connections: 64,
    requests: [{ method: 'POST', path: '/api/v1/messages', headers, setupRequest: (request) => ({ ...request, body: JSON.stringify({ to: `+3371${String(++counter).padStart(7, '0')}`, body: 'Your code is 482913' }) }) }],
  })
  const accepted = sends.requests.total - sends.non2xx
  let carried = await storedSent()
  while (carried < accepted && performance.now() - loadStarted < seconds * 1000 + 60_000) {
    await sleep(20)
    carried = await storedSent()
  }
  const singleSeconds = (performance.now() - loadStarted) / 1000

  // 4. Throttle 600 per minute, held over whole minutes.
  const throttled = await api('POST', '/campaigns', {
    name: 'bench throttle',
    body: 'Paced',
    audience: { numbers: Array.from({ length: THROTTLE * (THROTTLE_MINUTES + 1) }, (_, index) => `+3372${String(index).padStart(7, '0')}`) },
    throttlePerMinute: THROTTLE,
  })
  await api('POST', `/campaigns/${throttled.id}/launch`)
  const materialised = () => countRows(gateway.dataDir, `SELECT COUNT(*) AS count FROM messages WHERE campaign_id = ${Number(throttled.id)}`)
  while ((await materialised()) === 0) await sleep(50)
  const perMinute = []
  let before = await materialised()
  for (let minute = 0; minute < THROTTLE_MINUTES; minute++) {
    await sleep(60_000)
    const now = await materialised()
    perMinute.push(now - before)
    before = now
  }

  console.log(`bench/campaigns.js: ${RECIPIENTS} recipients, ${PHONES} simulated phones, node ${process.version}`)
  console.table([
    { name: 'launch answer', ms: Math.round(launchAnswerMs) },
    { name: 'audience resolved (counts.total)', ms: resolvedMs === null ? null : Math.round(resolvedMs) },
    { name: `campaign sent by ${PHONES} phones, no throttle`, perSecond: Math.round(campaignSent / campaignSeconds), sent: campaignSent, seconds: Math.round(campaignSeconds) },
    summary('POST /messages (1 recipient), same phones', sends, { endToEndPerSecond: Math.round(carried / singleSeconds) }),
    { name: `throttle ${THROTTLE}/min`, perMinute: perMinute.join(', '), worstDeviationPercent: +Math.max(...perMinute.map((count) => (Math.abs(count - THROTTLE) / THROTTLE) * 100)).toFixed(2) },
    { name: 'gateway RSS (MB)', idle: idleRss, peakWhileLaunching: launchRss, peakWhileSending: peakRss },
  ])
} finally {
  for (const agent of agents) await agent.disconnect()
  await gateway.stop()
}
