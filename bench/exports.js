#!/usr/bin/env node
// CSV export of one million messages: rows per second and the gateway's peak memory (VmHWM of
// the server process, beside its resident memory before the export), then the same as JSON.
// Memory must stay flat whatever the row count: rows are streamed as they are read.
//
//   npm run bench:exports      (builds first)      BENCH_MESSAGES=200000 node bench/exports.js
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createApiKey, startGateway } from './lib/gateway.js'
import { seedMessages } from './seed_messages.js'

const count = Number(process.env.BENCH_MESSAGES ?? 1_000_000)

function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const field = (name) => Math.round(Number(status.match(new RegExp(`${name}:\\s+(\\d+) kB`))[1]) / 1024)
  return { rssMiB: field('VmRSS'), peakMiB: field('VmHWM') }
}

/** Downloads an export, counting lines and bytes as they arrive (nothing is kept). */
async function download(url, headers) {
  const started = Date.now()
  const response = await fetch(url, { headers })
  if (response.status !== 200) throw new Error(`export answered ${response.status}`)
  let bytes = 0
  let newlines = 0
  for await (const chunk of response.body) {
    bytes += chunk.length
    for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, index + 1)) newlines++
  }
  return { seconds: (Date.now() - started) / 1000, bytes, newlines }
}

let gateway = await startGateway()
const dataDir = gateway.dataDir
await gateway.stop({ keepData: true })
await seedMessages(join(dataDir, 'gateway.db'), count)
gateway = await startGateway({ dataDir })
try {
  const headers = { 'x-api-key': await createApiKey(gateway.base, 'admin') }
  const before = memoryOf(gateway.pid)
  const csv = await download(`${gateway.base}/api/v1/export/messages`, headers)
  const afterCsv = memoryOf(gateway.pid)
  const json = await download(`${gateway.base}/api/v1/export/messages?format=json`, headers)
  const afterJson = memoryOf(gateway.pid)
  console.log(`bench/exports.js: ${count} messages, node ${process.version}`)
  console.table([
    { export: 'before (idle)', rssMiB: before.rssMiB, peakMiB: before.peakMiB },
    {
      export: 'messages CSV',
      rows: csv.newlines - 1,
      seconds: +csv.seconds.toFixed(1),
      rowsPerSecond: Math.round((csv.newlines - 1) / csv.seconds),
      MiB: Math.round(csv.bytes / 1048576),
      rssMiB: afterCsv.rssMiB,
      peakMiB: afterCsv.peakMiB,
    },
    {
      export: 'messages JSON',
      seconds: +json.seconds.toFixed(1),
      rowsPerSecond: Math.round(count / json.seconds),
      MiB: Math.round(json.bytes / 1048576),
      rssMiB: afterJson.rssMiB,
      peakMiB: afterJson.peakMiB,
    },
  ])
} finally {
  await gateway.stop()
}
