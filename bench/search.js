#!/usr/bin/env node
// Search (`q`) on one million messages: GET /api/v1/messages?q=… and GET /api/v1/conversations?q=…
// (a rare word, a common word, a part of a number, a contact's name; the first page and the next)
// beside the plain list, timed one request at a time (p50, p99); then the cost of the search
// index in writes: pages written per message inserted, with and without the index's triggers.
//
//   node ace build && node bench/search.js
//   BENCH_MESSAGES=200000 BENCH_REQUESTS=50 node bench/search.js
import { copyFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import sqlite3 from 'sqlite3'
import { createApiKey, startGateway } from './lib/gateway.js'
import { seedMessages } from './seed_messages.js'

const count = Number(process.env.BENCH_MESSAGES ?? 1_000_000)
const requests = Number(process.env.BENCH_REQUESTS ?? 100)

function open(file) {
  const db = new sqlite3.Database(file)
  const run = (sql, params = []) => new Promise((resolve, reject) => db.run(sql, params, (error) => (error ? reject(error) : resolve())))
  const exec = (sql) => new Promise((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve())))
  const all = (sql, params = []) => new Promise((resolve, reject) => db.all(sql, params, (error, rows) => (error ? reject(error) : resolve(rows))))
  const close = () => new Promise((resolve) => db.close(resolve))
  return { run, exec, all, close }
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]

/** `requests` GETs one after the other (after 3 to warm up): p50, p99 and the rows answered. */
async function timed(url, headers) {
  let answer
  for (let warmup = 0; warmup < 3; warmup++) answer = await (await fetch(url, { headers })).json()
  const times = []
  for (let index = 0; index < requests; index++) {
    const started = performance.now()
    const response = await fetch(url, { headers })
    answer = await response.json()
    times.push(performance.now() - started)
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`)
  }
  times.sort((a, b) => a - b)
  return { p50: +percentile(times, 50).toFixed(1), p99: +percentile(times, 99).toFixed(1), rows: answer.data.length, nextCursor: answer.nextCursor }
}

/**
 * Pages written per message inserted: `rounds` inserts of `batch` messages, one transaction each
 * (1: a received SMS; 100: a send to 100 numbers), counted as the frames the WAL grew by, on a
 * copy of the seeded database, with the search triggers and then without them.
 */
async function pagesPerMessage(file, batch, rounds, withIndex) {
  const copy = `${file}.writes-${batch}-${withIndex}`
  const db = open(file)
  await db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
  await db.close()
  copyFileSync(file, copy)
  const bench = open(copy)
  try {
    await bench.exec('PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; PRAGMA synchronous = NORMAL')
    if (!withIndex) await bench.exec('DROP TRIGGER messages_search_insert; DROP TRIGGER messages_search_delete; DROP TRIGGER messages_search_update')
    await bench.exec('PRAGMA wal_checkpoint(TRUNCATE)')
    const [{ page_size: pageSize }] = await bench.all('PRAGMA page_size')
    const [conversation] = await bench.all(`SELECT id, phone FROM conversations ORDER BY id LIMIT 1`)
    for (let round = 0; round < rounds; round++) {
      const values = Array.from({ length: batch }, (_, index) => `(${conversation.id}, 'out', 'transactional', '${conversation.phone}', 'Bench write ${round} ${index} your parcel is ready', 'gsm7', 1, 'queued', 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`)
      await bench.exec(
        `BEGIN; INSERT INTO messages (conversation_id, direction, category, phone, body, encoding, segments, status, attempts, created_at, updated_at) VALUES ${values.join(', ')}; COMMIT;`
      )
    }
    const walBytes = statSync(`${copy}-wal`).size
    return +((walBytes - 32) / (pageSize + 24) / (batch * rounds)).toFixed(2)
  } finally {
    await bench.close()
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${copy}${suffix}`, { force: true })
  }
}

let gateway = await startGateway()
const dataDir = gateway.dataDir
await gateway.stop({ keepData: true })
const file = join(dataDir, 'gateway.db')
const seedStarted = Date.now()
await seedMessages(file, count)
// One message in 10,000 gets a rarer word; the index is kept by the triggers as any change.
const db = open(file)
await db.exec(`UPDATE messages SET body = body || ' parcel' WHERE id % 10000 = 0; PRAGMA wal_checkpoint(TRUNCATE)`)
const [{ size: indexBytes }] = await db.all(`SELECT SUM(pgsize) AS size FROM dbstat WHERE name LIKE 'messages_search%'`).catch(() => [{ size: null }])
const [{ size: tableBytes }] = await db.all(`SELECT SUM(pgsize) AS size FROM dbstat WHERE name = 'messages'`).catch(() => [{ size: null }])
await db.close()
const seedSeconds = ((Date.now() - seedStarted) / 1000).toFixed(1)

gateway = await startGateway({ dataDir })
try {
  const secret = await createApiKey(gateway.base, 'admin')
  const headers = { 'x-api-key': secret }
  // A contact on one of the seed's 1,000 numbers: its 1,000 messages are found by her name.
  const contact = await fetch(`${gateway.base}/api/v1/contacts`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ phone: '+33610000042', firstName: 'Ada', lastName: 'Lovelace' }),
  })
  if (contact.status !== 201) throw new Error(`POST /contacts answered ${contact.status}`)

  const cases = [
    ['plain list', ''],
    ['q: a rare word (100 matches)', 'parcel'],
    ['q: a common word (every message)', 'seeded'],
    ['q: two words (every message)', 'seeded message'],
    ['q: last digits of a number (1,000 matches)', '0000042'],
    ['q: a whole number written with spaces', '+33 6 10 00 00 42'],
    ['q: a number part every number has (every message)', '3361'],
    ['q: a contact name (1,000 matches)', 'lovelace'],
    ['q: nothing matches', 'zebra'],
  ]
  const rows = []
  for (const [list, path] of [
    ['messages', '/api/v1/messages'],
    ['conversations', '/api/v1/conversations'],
  ]) {
    for (const [name, q] of cases) {
      const url = `${gateway.base}${path}?limit=50${q ? `&q=${encodeURIComponent(q)}` : ''}`
      const first = await timed(url, headers)
      const next = first.nextCursor ? await timed(`${url}&cursor=${first.nextCursor}`, headers) : null
      rows.push({ list, case: name, 'first p50 ms': first.p50, 'first p99 ms': first.p99, rows: first.rows, 'next p50 ms': next?.p50 ?? '—', 'next p99 ms': next?.p99 ?? '—' })
    }
  }
  console.log(
    `bench/search.js: ${count} messages over 1,000 numbers (seeded with the index in ${seedSeconds} s), 50 per page, ` +
      `${requests} sequential requests per row, node ${process.version}`
  )
  console.table(rows)
  console.log(`messages table ${(tableBytes / 1e6).toFixed(0)} MB, search index ${(indexBytes / 1e6).toFixed(0)} MB`)
} finally {
  await gateway.stop({ keepData: true })
}

const writes = []
for (const [batch, rounds] of [
  [1, 2000],
  [100, 40],
]) {
  writes.push({
    'messages a transaction': batch,
    'pages written per message, with the index': await pagesPerMessage(file, batch, rounds, true),
    'without it': await pagesPerMessage(file, batch, rounds, false),
  })
}
console.table(writes)
rmSync(dataDir, { recursive: true, force: true })
