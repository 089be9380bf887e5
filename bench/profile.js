#!/usr/bin/env node
// Where one request's main-thread time goes. For each target, the compiled gateway runs under
// V8's sampling profiler (--cpu-prof) on a fresh data folder; after a warm-up the target is
// loaded for BENCH_SECONDS, and only that window's samples are counted: main-thread time per
// request, split by category (bench/lib/profile_breakdown.js), and the main thread's CPU time
// per request as the kernel counts it, which a shared machine inflates less. Loopback only.
//
//   node ace build && node bench/profile.js                 # the floor, GET /health, API-key GET /auth/me, POST /messages
//   BENCH_PROFILE_TARGETS=send node bench/profile.js
//   BENCH_PROFILE_FRAMES=1 node bench/profile.js             # and the 40 innermost frames that took most
//   BENCH_PROFILE_KEEP=1 node bench/profile.js               # keeps the .cpuprofile (open it in Chrome's DevTools)
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { createApiKey, seconds, startGateway } from './lib/gateway.js'
import { profileBreakdown } from './lib/profile_breakdown.js'

let counter = 0
function nextNumber() {
  counter = (counter + 1) % 10_000_000
  return `+336${String(10_000_000 + counter).slice(1).padStart(8, '0')}`
}

const TARGETS = {
  // The framework's floor: a route registered the framework's way (a closure answering a
  // constant JSON), behind the server middleware every request runs (request id and its log
  // line, body guard, the dashboard's three) and none of the registry's route middleware (no
  // access check, body guards, validation). Only there when the gateway starts with
  // GATEWAY_BENCH_FLOOR_ROUTE (start/routes.ts).
  floor: { name: 'GET /bench-floor (plain AdonisJS route)', scope: null, env: { GATEWAY_BENCH_FLOOR_ROUTE: 'true' }, request: () => ({ method: 'GET', path: '/bench-floor' }) },
  health: { name: 'GET /health', scope: null, request: () => ({ method: 'GET', path: '/health' }) },
  'auth-me': { name: 'GET /api/v1/auth/me (API key)', scope: 'read', request: (key) => ({ method: 'GET', path: '/api/v1/auth/me', headers: { 'x-api-key': key } }) },
  send: {
    name: 'POST /api/v1/messages, 1 recipient (API key)',
    scope: 'send',
    request: (key) => ({
      method: 'POST',
      path: '/api/v1/messages',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      setupRequest: (request) => ({ ...request, body: JSON.stringify({ to: nextNumber(), body: 'Your code is 482913' }) }),
    }),
  },
}

/**
 * The gateway's main thread's CPU time so far, as the kernel counts it (Linux). On a shared
 * machine the profile's samples also count the time the thread waited for a core, this does
 * not: the categories are also given as their share of it.
 */
function mainThreadCpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
}

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100

/** Runs `start` with `variables` added to the environment the gateway inherits. */
async function withEnvironment(variables, start) {
  const before = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]))
  Object.assign(process.env, variables)
  try {
    return await start()
  } finally {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
}

function run(base, request, duration) {
  return new Promise((resolve, reject) => {
    autocannon({ url: base, connections: 50, duration, requests: [request] }, (error, result) => (error ? reject(error) : resolve(result)))
  })
}

const wanted = (process.env.BENCH_PROFILE_TARGETS ?? 'floor,health,auth-me,send').split(',')
const report = []
for (const id of wanted) {
  const target = TARGETS[id]
  if (!target) throw new Error(`unknown target ${id}: one of ${Object.keys(TARGETS).join(', ')}`)
  const profileDir = mkdtempSync(join(tmpdir(), 'gateway-profile-'))
  process.env.BENCH_GATEWAY_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${profileDir}`
  const gateway = await withEnvironment(target.env ?? {}, () => startGateway())
  let result
  let window
  let cpuMs
  try {
    const key = target.scope ? await createApiKey(gateway.base, target.scope) : undefined
    await run(gateway.base, target.request(key), 2)
    const from = process.hrtime.bigint() / 1000n
    const cpuFrom = mainThreadCpuMs(gateway.pid)
    result = await run(gateway.base, target.request(key), seconds)
    cpuMs = mainThreadCpuMs(gateway.pid) - cpuFrom
    window = [Number(from), Number(process.hrtime.bigint() / 1000n)]
  } finally {
    await gateway.stop()
  }
  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'))
  if (!file) throw new Error('the gateway wrote no profile (did it exit on SIGTERM?)')
  const breakdown = profileBreakdown(join(profileDir, file), window)
  if (process.env.BENCH_PROFILE_KEEP) console.log(`profile kept in ${profileDir}`)
  else rmSync(profileDir, { recursive: true, force: true })
  const requests = result.requests.total
  const perRequestUs = (ms) => Math.round((ms * 1000) / requests)
  report.push({ target: target.name, requestsPerSecond: Math.round(result.requests.average), busy: breakdown.busyShare, perRequestUs: perRequestUs(breakdown.busyMs), cpuPerRequestUs: perRequestUs(cpuMs) })
  console.log(
    `\n${target.name}: ${Math.round(result.requests.average)} req/s, ${result.non2xx} non-2xx, main thread ${Math.round(breakdown.busyShare * 100)} % busy, ` +
      `${perRequestUs(breakdown.busyMs)} µs of main thread per request in the profile, ${perRequestUs(cpuMs)} µs of its CPU time`
  )
  console.table(
    breakdown.categories.map(({ category, share, ms }) => ({
      category,
      share: `${(share * 100).toFixed(1)} %`,
      'µs per request': perRequestUs(ms),
      'µs of CPU time per request': perRequestUs(share * cpuMs),
    }))
  )
  if (process.env.BENCH_PROFILE_FRAMES) {
    console.table(breakdown.topFrames.map(({ frame, ms }) => ({ frame: frame.slice(0, 110), 'µs per request': perRequestUs(ms) })))
  }
}
console.log(JSON.stringify(report))
