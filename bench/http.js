#!/usr/bin/env node
// GET /health and GET /api/v1/auth/me (API key) on the compiled gateway, beside a bare Node
// HTTP server answering the same JSON in the same run (the machine's baseline). Loopback only.
//
//   npm run bench                         (builds, then runs every benchmark)
//   BENCH_SECONDS=20 node bench/http.js
import { createServer } from 'node:http'
import { createApiKey, freePort, load, seconds, startGateway, summary } from './lib/gateway.js'

const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
const baselinePort = await freePort()
const baseline = createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
  response.end('{"status":"ok"}')
}).listen(baselinePort, '127.0.0.1')

const gateway = await startGateway()
try {
  const secret = await createApiKey(gateway.base, 'read')
  const results = [
    summary('bare node:http (baseline)', await load({ url: `http://127.0.0.1:${baselinePort}/`, connections })),
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
  baseline.close()
  await gateway.stop()
}
