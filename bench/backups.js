#!/usr/bin/env node
// A backup of a 1 GB database (POST /api/v1/backups: VACUUM INTO, read back, verified, fsync,
// rename), with the p99 of GET /api/v1/messages measured while it runs beside the same figure
// without a backup; then sqlite3's own `.backup` of the same database (gateway stopped: the
// Debian tool is older than the driver and is not used on a live database).
//
//   npm run bench:backups      (builds first)      BENCH_DB_MB=256 node bench/backups.js
import { execFileSync } from 'node:child_process'
import { rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { createApiKey, startGateway } from './lib/gateway.js'
import { seedMessages } from './seed_messages.js'

const targetBytes = Number(process.env.BENCH_DB_MB ?? 1024) * 1024 * 1024
const mib = (bytes) => Math.round(bytes / 1048576)

function readLoad(url, headers, durationSeconds) {
  const instance = autocannon({ url, headers, connections: 16, duration: durationSeconds })
  const done = new Promise((resolve, reject) => instance.once('done', resolve).once('error', reject))
  return { instance, done }
}

let gateway = await startGateway()
const dataDir = gateway.dataDir
await gateway.stop({ keepData: true })
const database = join(dataDir, 'gateway.db')
const seedStarted = Date.now()
while (statSync(database).size < targetBytes) await seedMessages(database, 1_000_000)
const size = statSync(database).size
console.log(`seeded ${mib(size)} MiB in ${((Date.now() - seedStarted) / 1000).toFixed(0)} s`)

gateway = await startGateway({ dataDir })
let results
try {
  const key = await createApiKey(gateway.base, 'admin')
  const headers = { 'x-api-key': key, 'content-type': 'application/json' }
  // No automatic backup during the measure.
  await fetch(`${gateway.base}/api/v1/settings`, { method: 'PATCH', headers, body: JSON.stringify({ backup: { enabled: false } }) })
  const url = `${gateway.base}/api/v1/messages?limit=50`

  const quiet = await readLoad(url, { 'x-api-key': key }, 10).done

  const during = readLoad(url, { 'x-api-key': key }, 600)
  const started = Date.now()
  const answer = await fetch(`${gateway.base}/api/v1/backups`, { method: 'POST', headers: { 'x-api-key': key } })
  const backupSeconds = (Date.now() - started) / 1000
  during.instance.stop()
  const loaded = await during.done
  const attempt = await answer.json()
  if (answer.status !== 201) throw new Error(`backup answered ${answer.status}: ${JSON.stringify(attempt)}`)

  results = [
    { measure: 'GET /api/v1/messages, no backup', requestsPerSecond: Math.round(quiet.requests.average), p50Ms: quiet.latency.p50, p99Ms: quiet.latency.p99 },
    { measure: 'GET /api/v1/messages, during the backup', requestsPerSecond: Math.round(loaded.requests.average), p50Ms: loaded.latency.p50, p99Ms: loaded.latency.p99, errors: loaded.errors + loaded.non2xx },
    { measure: 'POST /api/v1/backups (copy, verify, fsync, rename)', seconds: +backupSeconds.toFixed(1), MiB: mib(attempt.size), MiBPerSecond: Math.round(mib(size) / backupSeconds) },
  ]
} finally {
  await gateway.stop({ keepData: true })
}

const cliTarget = join(dataDir, 'cli-backup.db')
const cliStarted = Date.now()
execFileSync('sqlite3', [database, `.backup '${cliTarget}'`])
const cliSeconds = (Date.now() - cliStarted) / 1000
results.push({ measure: "sqlite3 CLI .backup (gateway stopped)", seconds: +cliSeconds.toFixed(1), MiB: mib(statSync(cliTarget).size), MiBPerSecond: Math.round(mib(size) / cliSeconds) })
rmSync(dataDir, { recursive: true, force: true })

console.log(`bench/backups.js: database ${mib(size)} MiB, node ${process.version}`)
console.table(results)
