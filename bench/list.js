#!/usr/bin/env node
// Listing on a table of one million messages: the first, a middle and the last page of
// GET /api/v1/messages (keyset pages must cost the same wherever they are), beside GET /health.
//
//   npm run bench            (builds, then runs every benchmark)
//   BENCH_MESSAGES=200000 node bench/list.js
import { join } from 'node:path'
import { createApiKey, load, seconds, startGateway, summary } from './lib/gateway.js'
import { seedMessages } from './seed_messages.js'

const count = Number(process.env.BENCH_MESSAGES ?? 1_000_000)

/**
 * The cursor of the page that starts just after the message created `offset` seconds after the
 * seed's start. The cursor is opaque to clients; the benchmark builds it to jump straight to a
 * deep page instead of walking 20,000 pages to get there.
 */
function cursorAt(offset, id) {
  const createdAt = new Date(Date.parse('2025-01-01T00:00:00.000Z') + offset * 1000).toISOString()
  return Buffer.from(JSON.stringify({ v: 1, s: createdAt, i: id })).toString('base64url')
}

let gateway = await startGateway()
const dataDir = gateway.dataDir
await gateway.stop({ keepData: true })
const seedStarted = Date.now()
await seedMessages(join(dataDir, 'gateway.db'), count)
const seedSeconds = ((Date.now() - seedStarted) / 1000).toFixed(1)
gateway = await startGateway({ dataDir })
try {
  const secret = await createApiKey(gateway.base, 'read')
  const headers = { 'x-api-key': secret }
  const page = (query) => `${gateway.base}/api/v1/messages?limit=50${query}`
  // Seeded ids run 1..count in creation order, one second apart.
  const middle = Math.floor(count / 2)
  const results = [
    summary('GET /health', await load({ url: `${gateway.base}/health` })),
    summary('first page', await load({ url: page(''), headers })),
    summary('middle page', await load({ url: page(`&cursor=${cursorAt(middle, middle + 1)}`), headers })),
    summary('last page', await load({ url: page(`&cursor=${cursorAt(50, 51)}`), headers })),
    summary('filtered: direction=in, last pages', await load({ url: page(`&direction=in&cursor=${cursorAt(500, 501)}`), headers })),
  ]
  console.log(`bench/list.js: ${count} messages (seeded in ${seedSeconds} s), 50 per page, 50 connections, ${seconds} s each, node ${process.version}`)
  console.table(results)
  console.log(JSON.stringify({ lastToFirstPage: +(results[3].requestsPerSecond / results[1].requestsPerSecond).toFixed(2) }))
} finally {
  await gateway.stop()
}
