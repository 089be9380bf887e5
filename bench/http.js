#!/usr/bin/env node
// Benchmark: the compiled gateway under autocannon, loopback only, against a bare Node HTTP
// server answering the same JSON in the same run (the machine's baseline; these machines are
// shared and noisy, so only figures from one run compare). Measures:
//   - GET /health (no authentication)
//   - GET /api/v1/auth/me with an API key (key lookup, rate-limit bookkeeping, scope check)
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

function load(url, headers = {}) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration: seconds, headers }, (error, result) => (error ? reject(error) : resolve(result)))
  })
}

/** Signs up the first account on the fresh gateway and creates an API key the way an operator does. */
async function createApiKey(base) {
  const setup = await fetch(`${base}/api/v1/auth/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@gateway.test', password: 'benchmark password', name: 'Bench' }),
  })
  if (setup.status !== 201) throw new Error(`setup answered ${setup.status}`)
  const jar = new Map(setup.headers.getSetCookie().map((line) => line.split(';')[0].split(/=(.*)/s).slice(0, 2)))
  const created = await fetch(`${base}/api/v1/api-keys`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
      'x-xsrf-token': decodeURIComponent(jar.get('XSRF-TOKEN') ?? ''),
    },
    body: JSON.stringify({ name: 'bench', scope: 'read' }),
  })
  if (created.status !== 201) throw new Error(`key creation answered ${created.status}`)
  return (await created.json()).secret
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
  const secret = await createApiKey(`http://127.0.0.1:${port}`)
  const me = await fetch(`http://127.0.0.1:${port}/api/v1/auth/me`, { headers: { 'x-api-key': secret } })
  if (me.status !== 200) throw new Error(`GET /auth/me answered ${me.status}`)
  const results = [
    summary('bare node:http (baseline)', await load(`http://127.0.0.1:${baselinePort}/`)),
    summary('gateway GET /health', await load(`http://127.0.0.1:${port}/health`)),
    summary('gateway GET /api/v1/auth/me (API key)', await load(`http://127.0.0.1:${port}/api/v1/auth/me`, { 'x-api-key': secret })),
  ]
  console.log(`${connections} connections, ${seconds} s each, node ${process.version}`)
  console.table(results)
  console.log(
    JSON.stringify({
      healthToBaseline: +(results[1].requestsPerSecond / results[0].requestsPerSecond).toFixed(2),
      authMeToHealth: +(results[2].requestsPerSecond / results[1].requestsPerSecond).toFixed(2),
    })
  )
} finally {
  gateway.kill('SIGTERM')
  baseline.close()
  await new Promise((resolve) => gateway.once('exit', resolve))
  rmSync(dataDir, { recursive: true, force: true })
}
