#!/usr/bin/env node
// Every statistics endpoint on a table of one million messages (docs/statistics.md): message
// volume (7 days by day, 30 days by day, 2 days by hour, Europe/Paris buckets, and harder
// cases: filters, 400 days), its breakdown per phone, SIM, campaign and category, delivery
// rate, failure reasons, latency, link clicks and opt-outs. For each: the latency of one request
// at a time (the figure the ≤ 100 ms aim is about); for the volume cases also autocannon at 10
// connections (BENCH_LOAD=all for every case, BENCH_LOAD=none for none).
//
//   node ace build && node bench/statistics.js
//   BENCH_MESSAGES=200000 BENCH_SPACING_SECONDS=31 node bench/statistics.js   (spread over a year)
//
// The seed varies what the counters are keyed by (direction, status, category, phone, SIM,
// campaign, error code, latency), so their row count is not flattered: every 15-minute slot
// holds every combination of direction, status, category, phone and SIM. Outbound messages
// that reached the phone have a sent time 0 to 39 s after creation (every 97th ten minutes more),
// delivered ones a delivery 2 s to 3 min after that (every 53rd an hour more). 200 short links get
// BENCH_CLICKS clicks (100,000) spread over the range; 20,000 contacts, one in 20 opted out at
// its creation and one in 5 of those back in a day later.
import { join } from 'node:path'
import sqlite3 from 'sqlite3'
import { countRows, createApiKey, load, seconds, startGateway, summary } from './lib/gateway.js'

const count = Number(process.env.BENCH_MESSAGES ?? 1_000_000)
const spacing = Number(process.env.BENCH_SPACING_SECONDS ?? 1)
const sequentialRuns = Number(process.env.BENCH_SEQUENTIAL ?? 50)
const clicks = Number(process.env.BENCH_CLICKS ?? 100_000)
const loadCases = process.env.BENCH_LOAD ?? 'volume'

function seed(file) {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, (openError) => {
      if (openError) return reject(openError)
      // One statement, inside SQLite: the counters' triggers run for every row as in real use.
      const sql = `
        PRAGMA busy_timeout = 10000;
        BEGIN;
        WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < 999)
        INSERT OR IGNORE INTO conversations (phone, state, unread_count, pinned, archived, category, created_at, last_message_at)
          SELECT printf('+3361%07d', n), 'open', 0, 0, 0, 'transactional', '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z' FROM seq;
        WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ${count - 1})
        INSERT INTO messages (conversation_id, direction, category, phone, body, encoding, segments, status, attempts, device_id, created_at, updated_at,
                              sim_slot, campaign_id, error_code, sent_at, delivered_at)
          SELECT id, direction, category, phone, body, encoding, segments, status, attempts, device_id, created_at, updated_at, sim_slot,
                 CASE WHEN category = 'campaign' AND direction = 'out' THEN 1 + (n / 50000) % 20 END,
                 CASE WHEN status = 'failed' THEN CASE (n / 7) % 5 WHEN 0 THEN 'GENERIC_FAILURE' WHEN 1 THEN 'NO_SERVICE' WHEN 2 THEN 'RADIO_OFF'
                      WHEN 3 THEN 'NULL_PDU' ELSE 'DEVICE_OFFLINE' END END,
                 CASE WHEN direction = 'out' AND status IN ('sent', 'delivered')
                      THEN strftime('%Y-%m-%dT%H:%M:%fZ', created_at, '+' || ((n * 7919) % 40 + (n % 97 = 0) * 600 + 0.25) || ' seconds') END,
                 CASE WHEN direction = 'out' AND status = 'delivered'
                      THEN strftime('%Y-%m-%dT%H:%M:%fZ', created_at, '+' || ((n * 7919) % 40 + (n % 97 = 0) * 600 + 2 + (n * 104729) % 180 + (n % 53 = 0) * 3600) || ' seconds') END
          FROM (SELECT n, c.id AS id,
                 CASE WHEN n % 5 = 0 THEN 'in' ELSE 'out' END AS direction,
                 CASE n % 4 WHEN 0 THEN 'transactional' WHEN 1 THEN 'info' WHEN 2 THEN 'campaign' ELSE 'conversation' END AS category,
                 c.phone AS phone, 'Seeded message number ' || n AS body, 'gsm7' AS encoding, 1 AS segments,
                 CASE WHEN n % 5 = 0 THEN 'delivered' WHEN n % 7 = 0 THEN 'failed' WHEN n % 11 = 0 THEN 'queued'
                      WHEN n % 3 = 0 THEN 'delivered' ELSE 'sent' END AS status,
                 1 AS attempts, CAST(n % 3 + 1 AS TEXT) AS device_id,
                 strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01T00:00:00', '+' || (n * ${spacing}) || ' seconds') AS created_at,
                 strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01T00:00:00', '+' || (n * ${spacing}) || ' seconds') AS updated_at,
                 (n / 3) % 2 AS sim_slot
          FROM seq JOIN conversations c ON c.phone = printf('+3361%07d', n % 1000));
        WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < 200)
        INSERT INTO links (code, url, clicks, created_at)
          SELECT printf('bench%03d', n), 'https://example.com/offer/' || n, 0, '2025-01-01T00:00:00.000Z' FROM seq;
        WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ${clicks - 1})
        INSERT INTO link_click_counts (slot, link_id, clicks)
          SELECT (1735689600 + (n * 7907) % ${Math.max(1, Math.round(count * spacing))}) / 900 * 900 AS slot,
                 (SELECT MIN(id) FROM links) + (n * 31 + n / 7) % 200, COUNT(*)
            FROM seq GROUP BY 1, 2;
        UPDATE links SET clicks = (SELECT COALESCE(SUM(clicks), 0) FROM link_click_counts WHERE link_id = links.id);
        WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < 19999)
        INSERT INTO contacts (phone, tags, blacklisted, created_at, updated_at)
          SELECT printf('+3362%07d', n), '[]', n % 20 = 0,
                 strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01T00:00:00', '+' || (n * ${Math.max(1, Math.floor((count * spacing) / 20000))}) || ' seconds'),
                 strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01T00:00:00', '+' || (n * ${Math.max(1, Math.floor((count * spacing) / 20000))}) || ' seconds')
            FROM seq;
        UPDATE contacts SET blacklisted = 0, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', created_at, '+1 day')
         WHERE blacklisted = 1 AND id % 5 = 0;
        COMMIT;
        PRAGMA wal_checkpoint(TRUNCATE);`
      db.exec(sql, (error) => db.close(() => (error ? reject(error) : resolve())))
    })
  })
}

/** One request at a time: p50, p95 and max of `runs` answers, after a warm-up. */
async function sequential(url, headers, counted, runs = sequentialRuns) {
  for (let i = 0; i < 3; i++) await (await fetch(url, { headers })).arrayBuffer()
  const times = []
  let body
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    const answer = await fetch(url, { headers })
    body = await answer.json()
    times.push(performance.now() - started)
    if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}: ${JSON.stringify(body)}`)
  }
  times.sort((a, b) => a - b)
  const at = (q) => +times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1)
  return { p50: at(0.5), p95: at(0.95), max: at(1), buckets: body.buckets?.length ?? body.groups.length, counted: counted(body) }
}

const sumOut = (out) => Object.values(out).reduce((sum, n) => sum + n, 0)
/** What each endpoint counted, for the table: messages, failures, latencies, clicks, opt changes. */
const counted = {
  messages: (body) => sumOut(body.totals.out) + body.totals.in.received,
  breakdown: (body) => body.groups.reduce((sum, group) => sum + sumOut(group.totals.out) + group.totals.in.received, 0),
  'delivery-rate': (body) => body.totals.delivered + body.totals.failed + body.totals.sent,
  failures: (body) => body.totals.failed,
  latency: (body) => body.totals.toSent.count + body.totals.toDelivered.count,
  links: (body) => body.totals.clicks,
  'opt-outs': (body) => body.totals.optedOut + body.totals.optedIn,
}

const tables = ['message_volume', 'message_failures', 'message_latency', 'link_click_counts', 'contact_opt_changes']
let gateway = await startGateway()
const dataDir = gateway.dataDir
await gateway.stop({ keepData: true })
const seedStarted = Date.now()
await seed(join(dataDir, 'gateway.db'))
const seedSeconds = ((Date.now() - seedStarted) / 1000).toFixed(1)
const counterRows = {}
for (const table of tables) counterRows[table] = await countRows(dataDir, `SELECT COUNT(*) AS count FROM ${table}`)
gateway = await startGateway({ dataDir })
try {
  const secret = await createApiKey(gateway.base, 'read')
  const headers = { 'x-api-key': secret }
  const url = (endpoint, query) => `${gateway.base}/api/v1/statistics/${endpoint}?tz=Europe/Paris&${query}`
  const week = 'from=2025-01-03&to=2025-01-10'
  const month = 'from=2024-12-20&to=2025-01-19'
  const twoDaysByHour = 'from=2025-01-05&to=2025-01-07&interval=hour'
  const cases = [
    ['messages', '7 days by day', week],
    ['messages', '30 days by day', month],
    ['messages', '2 days by hour', twoDaysByHour],
    ['messages', '30 days by day, phone + category', `${month}&deviceId=2&category=info`],
    ['messages', '30 days by day, SIM + campaign', `${month}&deviceId=2&simSlot=1&campaignId=3`],
    ['messages', '400 days by day', 'from=2024-12-01&to=2026-01-05'],
    ['messages/breakdown', '30 days per phone', `${month}&groupBy=device`],
    ['messages/breakdown', '30 days per SIM', `${month}&groupBy=sim`],
    ['messages/breakdown', '30 days per campaign', `${month}&groupBy=campaign`],
    ['messages/breakdown', '30 days per category', `${month}&groupBy=category`],
    ['delivery-rate', '7 days by day', week],
    ['delivery-rate', '30 days by day', month],
    ['delivery-rate', '2 days by hour', twoDaysByHour],
    ['failures', '7 days by day', week],
    ['failures', '30 days by day', month],
    ['failures', '30 days by day, phone + SIM', `${month}&deviceId=1&simSlot=0`],
    ['latency', '7 days by day', week],
    ['latency', '30 days by day', month],
    ['latency', '2 days by hour', twoDaysByHour],
    ['latency', '30 days by day, phone + SIM', `${month}&deviceId=3&simSlot=1`],
    ['links', '7 days by day', week],
    ['links', '30 days by day', month],
    ['links', '30 days by day, one link', `${month}&linkId=7`],
    ['opt-outs', '30 days by day', month],
    ['opt-outs', '400 days by day', 'from=2024-12-01&to=2026-01-05'],
  ]
  const results = []
  for (const [endpoint, name, query] of cases) {
    const address = url(endpoint, query)
    const alone = await sequential(address, headers, counted[endpoint.split('/').at(-1) === 'breakdown' ? 'breakdown' : endpoint])
    const loaded =
      loadCases === 'all' || (loadCases === 'volume' && endpoint === 'messages')
        ? summary(name, await load({ url: address, headers, connections: 10 }))
        : {}
    results.push({
      endpoint,
      case: name,
      buckets: alone.buckets,
      counted: alone.counted,
      aloneP50Ms: alone.p50,
      aloneP95Ms: alone.p95,
      aloneMaxMs: alone.max,
      ...(loaded.requestsPerSecond === undefined ? {} : { rps10: loaded.requestsPerSecond, errors: loaded.errors }),
    })
  }
  console.log(
    `bench/statistics.js: ${count} messages ${spacing} s apart (seeded in ${seedSeconds} s, triggers included), ` +
      `counter rows ${JSON.stringify(counterRows)}; alone = ${sequentialRuns} requests one at a time; ` +
      `rps10 = autocannon, 10 connections, ${seconds} s; node ${process.version}`
  )
  console.table(results)
} finally {
  await gateway.stop()
}
