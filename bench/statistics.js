#!/usr/bin/env node
// GET /api/v1/statistics/messages on a table of one million messages (docs/statistics.md):
// 7 days by day, 30 days by day, 2 days by hour (Europe/Paris buckets), and two harder cases
// (30 days filtered by phone and category, 400 days by day). For each: the latency of one
// request at a time (the figure the ≤ 100 ms aim is about), then autocannon at 10 connections.
//
//   node ace build && node bench/statistics.js
//   BENCH_MESSAGES=200000 BENCH_SPACING_SECONDS=31 node bench/statistics.js   (spread over a year)
//
// The seed varies what the counters are keyed by (direction, status, category, phone), so
// their row count is not flattered: every 15-minute slot holds every combination.
import { join } from 'node:path'
import sqlite3 from 'sqlite3'
import { countRows, createApiKey, load, seconds, startGateway, summary } from './lib/gateway.js'

const count = Number(process.env.BENCH_MESSAGES ?? 1_000_000)
const spacing = Number(process.env.BENCH_SPACING_SECONDS ?? 1)
const sequentialRuns = Number(process.env.BENCH_SEQUENTIAL ?? 50)

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
        INSERT INTO messages (conversation_id, direction, category, phone, body, encoding, segments, status, attempts, device_id, created_at, updated_at)
          SELECT c.id,
                 CASE WHEN n % 5 = 0 THEN 'in' ELSE 'out' END,
                 CASE n % 4 WHEN 0 THEN 'transactional' WHEN 1 THEN 'info' WHEN 2 THEN 'campaign' ELSE 'conversation' END,
                 c.phone, 'Seeded message number ' || n, 'gsm7', 1,
                 CASE WHEN n % 5 = 0 THEN 'delivered' WHEN n % 7 = 0 THEN 'failed' WHEN n % 11 = 0 THEN 'queued'
                      WHEN n % 3 = 0 THEN 'delivered' ELSE 'sent' END,
                 1, CAST(n % 3 + 1 AS TEXT),
                 strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01T00:00:00', '+' || (n * ${spacing}) || ' seconds'),
                 strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01T00:00:00', '+' || (n * ${spacing}) || ' seconds')
          FROM seq JOIN conversations c ON c.phone = printf('+3361%07d', n % 1000);
        COMMIT;
        PRAGMA wal_checkpoint(TRUNCATE);`
      db.exec(sql, (error) => db.close(() => (error ? reject(error) : resolve())))
    })
  })
}

/** One request at a time: p50, p95 and max of `runs` answers, after a warm-up. */
async function sequential(url, headers, runs = sequentialRuns) {
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
  return { p50: at(0.5), p95: at(0.95), max: at(1), buckets: body.buckets.length, counted: total(body.totals) }
}

function total(totals) {
  return Object.values(totals.out).reduce((sum, n) => sum + n, 0) + totals.in.received
}

let gateway = await startGateway()
const dataDir = gateway.dataDir
await gateway.stop({ keepData: true })
const seedStarted = Date.now()
await seed(join(dataDir, 'gateway.db'))
const seedSeconds = ((Date.now() - seedStarted) / 1000).toFixed(1)
const counterRows = await countRows(dataDir, 'SELECT COUNT(*) AS count FROM message_volume')
gateway = await startGateway({ dataDir })
try {
  const secret = await createApiKey(gateway.base, 'read')
  const headers = { 'x-api-key': secret }
  const url = (query) => `${gateway.base}/api/v1/statistics/messages?tz=Europe/Paris&${query}`
  const cases = [
    ['7 days by day', url('from=2025-01-03&to=2025-01-10')],
    ['30 days by day', url('from=2024-12-20&to=2025-01-19')],
    ['2 days by hour', url('from=2025-01-05&to=2025-01-07&interval=hour')],
    ['30 days by day, phone + category', url('from=2024-12-20&to=2025-01-19&deviceId=2&category=info')],
    ['400 days by day', url('from=2024-12-01&to=2026-01-05')],
  ]
  const results = []
  for (const [name, address] of cases) {
    const alone = await sequential(address, headers)
    const { name: _, ...loaded } = summary(name, await load({ url: address, headers, connections: 10 }))
    results.push({ case: name, buckets: alone.buckets, counted: alone.counted, aloneP50Ms: alone.p50, aloneP95Ms: alone.p95, aloneMaxMs: alone.max, ...loaded })
  }
  console.log(
    `bench/statistics.js: ${count} messages ${spacing} s apart (seeded in ${seedSeconds} s, triggers included), ` +
      `${counterRows} counter rows; alone = ${sequentialRuns} requests one at a time; then 10 connections, ${seconds} s each; node ${process.version}`
  )
  console.table(results)
} finally {
  await gateway.stop()
}
