#!/usr/bin/env node
// Sending on the compiled gateway, beside GET /health in the same run. Loopback only.
//   - single-recipient sends: requests/s and p99 at 64 connections
//   - 500-recipient sends: messages accepted per second
//
//   npm run bench            (builds, then runs every benchmark)
//   BENCH_SECONDS=20 node bench/messages.js
import { createApiKey, load, seconds, startGateway, summary } from './lib/gateway.js'

let counter = 0
/** A different, valid French mobile number per call, so conversations grow as in real use. */
function nextNumber() {
  counter = (counter + 1) % 10_000_000
  return `+336${String(10_000_000 + counter).slice(1).padStart(8, '0')}`
}

const gateway = await startGateway()
try {
  const secret = await createApiKey(gateway.base, 'send')
  const headers = { 'content-type': 'application/json', 'x-api-key': secret }
  const bulkBody = JSON.stringify({ to: Array.from({ length: 500 }, nextNumber), body: 'Our store opens at 9:00 tomorrow. Reply STOP to opt out.' })

  const health = summary('GET /health', await load({ url: `${gateway.base}/health`, connections: 64 }))
  const single = summary(
    'POST /messages, 1 recipient',
    await load({
      url: `${gateway.base}/api/v1/messages`,
      connections: 64,
      requests: [
        {
          method: 'POST',
          path: '/api/v1/messages',
          headers,
          setupRequest: (request) => ({ ...request, body: JSON.stringify({ to: nextNumber(), body: 'Your code is 482913' }) }),
        },
      ],
    })
  )
  const bulkResult = await load({ url: `${gateway.base}/api/v1/messages`, connections: 4, method: 'POST', headers, body: bulkBody })
  const bulk = summary('POST /messages, 500 recipients', bulkResult, {
    messagesPerSecond: Math.round(bulkResult.requests.average * 500),
  })
  console.log(`bench/messages.js: ${seconds} s each, node ${process.version}`)
  console.table([health, single, bulk])
  console.log(JSON.stringify({ singleSendToHealth: +(single.requestsPerSecond / health.requestsPerSecond).toFixed(2) }))
} finally {
  await gateway.stop()
}
