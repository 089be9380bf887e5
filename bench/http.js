#!/usr/bin/env node
// GET /health and GET /api/v1/auth/me (API key) on the compiled gateway, beside a bare Node
// HTTP server in its own process in the same run (the machine's baseline). Loopback only.
//
//   npm run bench                         (builds, then runs every benchmark)
//   BENCH_SECONDS=20 node bench/http.js
import { createApiKey, load, seconds, startBareServer, startGateway, summary } from './lib/gateway.js'

const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
const baseline = await startBareServer()

const gateway = await startGateway()
try {
  const secret = await createApiKey(gateway.base, 'read')
  const results = [
    summary('bare node:http (baseline)', await load({ url: baseline.url, connections })),
    summary('gateway GET /health', await load({ url: `${gateway.base}/health`, connections })),
    summary('gateway GET /api/v1/auth/me (API key)', await load({ url: `${gateway.base}/api/v1/auth/me`, connections, headers: { 'x-api-key': secret } })),
  ]
  console.log(`bench/http.js: ${connections} connections, ${seconds} s each, node ${process.version}`)
  console.table(results)
  console.log(
    JSON.stringify({
      healthToBaseline: +(results[1].requestsPerSecond / results[0].requestsPerSecond).toFixed(2),
      authMeToHealth: +(results[2].requestsPerSecond / results[1].requestsPerSecond).toFixed(2),
    })
  )
} finally {
  baseline.stop()
  await gateway.stop()
}
