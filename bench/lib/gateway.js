// Shared by the benchmarks: start the compiled gateway on a fresh data folder (loopback only),
// sign up its first account, create API keys, run autocannon, summarise.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer as createNetServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { createRequire } from 'node:module'
import autocannon from 'autocannon'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const seconds = Number(process.env.BENCH_SECONDS ?? 10)

export function freePort() {
  return new Promise((resolve) => {
    const probe = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })
}

/** Starts build/bin/server.js; `dataDir` may be given to reuse a seeded folder. */
export async function startGateway({ dataDir } = {}) {
  if (!existsSync(join(root, 'build/bin/server.js'))) {
    throw new Error('build/ is missing: run the bench through npm (it builds first) or `node ace build`')
  }
  const folder = dataDir ?? mkdtempSync(join(tmpdir(), 'gateway-bench-'))
  const port = await freePort()
  // BENCH_GATEWAY_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the gateway itself.
  const nodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean)
  const child = spawn(process.execPath, [...nodeArgs, join(root, 'build/bin/server.js')], {
    cwd: root,
    env: await launcherEnvironment({ ...process.env, GATEWAY_DATA_DIR: folder, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production' }),
    stdio: 'ignore',
  })
  const base = `http://127.0.0.1:${port}`
  for (let attempt = 0; ; attempt++) {
    try {
      if ((await fetch(`${base}/health`)).ok) break
    } catch {}
    if (attempt > 300) throw new Error('the gateway did not start')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return {
    base,
    dataDir: folder,
    pid: child.pid,
    async stop({ keepData = false } = {}) {
      child.kill('SIGTERM')
      await new Promise((resolve) => child.once('exit', resolve))
      if (!keepData) rmSync(folder, { recursive: true, force: true })
    },
  }
}

/**
 * The environment `npm start` and `gateway start` give the server: the allocator's settings
 * (docs/operations.md, Memory) where `env` has none. A build from before them runs without.
 */
async function launcherEnvironment(env) {
  const settings = join(root, 'build/app/core/service/allocator_settings.js')
  if (!existsSync(settings)) return env
  return (await import(pathToFileURL(settings).href)).withAllocatorSettings(env)
}

/** Signs up the first account (or signs in) and creates an API key the way an operator does. */
export async function createApiKey(base, scope = 'send', name = `bench ${scope}`) {
  const account = { email: 'bench@gateway.test', password: 'benchmark password', name: 'Bench' }
  let answer = await fetch(`${base}/api/v1/auth/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(account) })
  if (answer.status === 409) {
    answer = await fetch(`${base}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(account) })
  }
  if (![200, 201].includes(answer.status)) throw new Error(`sign-in answered ${answer.status}`)
  const jar = new Map(answer.headers.getSetCookie().map((line) => line.split(';')[0].split(/=(.*)/s).slice(0, 2)))
  const created = await fetch(`${base}/api/v1/api-keys`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      cookie: [...jar].map(([key, value]) => `${key}=${value}`).join('; '),
      'x-xsrf-token': decodeURIComponent(jar.get('XSRF-TOKEN') ?? ''),
    },
    body: JSON.stringify({ name: `${name} ${Date.now()}`, scope }),
  })
  if (created.status !== 201) throw new Error(`key creation answered ${created.status}`)
  return (await created.json()).secret
}

export function load(options) {
  return new Promise((resolve, reject) => {
    autocannon({ duration: seconds, connections: 50, ...options }, (error, result) => (error ? reject(error) : resolve(result)))
  })
}

export function summary(name, result, extra = {}) {
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.non2xx,
    ...extra,
  }
}

/** Runs a COUNT query on the gateway's database, read-only, beside the running gateway. */
export function countRows(dataDir, sql) {
  const sqlite3 = createRequire(import.meta.url)('sqlite3')
  return new Promise((resolve, reject) => {
    const database = new sqlite3.Database(join(dataDir, 'gateway.db'), sqlite3.OPEN_READONLY, (error) => {
      if (error) return reject(error)
      database.get(sql, (queryError, row) => {
        database.close()
        if (queryError) reject(queryError)
        else resolve(row.count)
      })
    })
  })
}

/**
 * The machine's ceiling: Node's HTTP server doing nothing but reading the body and answering
 * 202 with a small JSON, in its own process (so it does not share autocannon's event loop).
 */
export async function startBareServer() {
  const port = await freePort()
  const child = spawn(
    process.execPath,
    [
      '-e',
      `require('node:http').createServer((request, response) => { request.resume(); request.on('end', () => { response.writeHead(202, { 'content-type': 'application/json' }); response.end('{"accepted":[]}') }) }).listen(${port}, '127.0.0.1', () => console.log('ready'))`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] }
  )
  await new Promise((resolve) => child.stdout.once('data', resolve))
  return { url: `http://127.0.0.1:${port}/`, stop: () => child.kill('SIGTERM') }
}
