#!/usr/bin/env node
// Benchmark: GET /health on the compiled gateway, with autocannon, against a bare Node HTTP
// server answering the same JSON in the same run (the machine's baseline; these machines are
// shared and noisy, so only figures from one run compare). Loopback only.
//
//   npm run bench            (builds, then runs this)
//   BENCH_SECONDS=20 BENCH_CONNECTIONS=100 npm run bench
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, existsSync } from 'node:fs'
import { createServer } from 'node:http'
import { createServer as createNetServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)

function freePort() {
  return new Promise((resolve) => {
    const probe = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })
}

async function waitForHealth(port) {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('the gateway did not start')
}

function load(url) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration: seconds }, (error, result) => (error ? reject(error) : resolve(result)))
  })
}

function summary(name, result) {
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.non2xx,
  }
}

if (!existsSync(join(root, 'build/bin/server.js'))) {
  console.error('build/ is missing: run `npm run bench` (it builds first) or `node ace build`')
  process.exit(1)
}

// Baseline: the same answer from a bare Node HTTP server.
const baselinePort = await freePort()
const baseline = createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
  response.end('{"status":"ok"}')
}).listen(baselinePort, '127.0.0.1')

const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bench-'))
const port = await freePort()
const gateway = spawn(process.execPath, [join(root, 'build/bin/server.js')], {
  cwd: root,
  env: { ...process.env, GATEWAY_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production' },
  stdio: 'ignore',
})

try {
  await waitForHealth(port)
  // Warm up both before measuring.
  await Promise.all([fetch(`http://127.0.0.1:${port}/health`), fetch(`http://127.0.0.1:${baselinePort}/`)])
  const results = [
    summary('bare node:http (baseline)', await load(`http://127.0.0.1:${baselinePort}/`)),
    summary('gateway GET /health', await load(`http://127.0.0.1:${port}/health`)),
  ]
  console.log(`GET /health, ${connections} connections, ${seconds} s each, node ${process.version}`)
  console.table(results)
  console.log(JSON.stringify({ ratioToBaseline: +(results[1].requestsPerSecond / results[0].requestsPerSecond).toFixed(2) }))
} finally {
  gateway.kill('SIGTERM')
  baseline.close()
  await new Promise((resolve) => gateway.once('exit', resolve))
  rmSync(dataDir, { recursive: true, force: true })
}
