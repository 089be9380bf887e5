#!/usr/bin/env node
// The gateway's resident memory (VmRSS from /proc): idle after start, after a warm-up, at the
// peak of a storm of bad requests (a fuzzer's mix, spread over many distinct values so that
// anything kept per input shows) beside sustained sends, and each second for a minute once the
// load stops. The aim: idle ≤ 110 MB, and a minute after the storm within 30 MB of the level
// after the warm-up. Loopback only.
//
//   npm run build && node bench/memory.js
//   BENCH_MEMORY_BAD=80000 node bench/memory.js      # more bad requests (default 40,000)
//   BENCH_MEMORY_SPLIT=1 node bench/memory.js        # also the heap, external and array buffers
//                                                    # read inside the gateway (inspector)
//   BENCH_MEMORY_SNAPSHOTS=/tmp/snaps node bench/memory.js   # heap snapshots after the warm-up and
//                                                    # a minute after the storm, largest kinds
//   MALLOC_ARENA_MAX=2 node bench/memory.js          # the environment reaches the gateway
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { createApiKey, freePort, startGateway } from './lib/gateway.js'
import { connectInspector, heapSummary } from './lib/inspector.js'

const badRequests = Number(process.env.BENCH_MEMORY_BAD ?? 40_000)
// V8's memory reducer gives the heap back some 20-30 s after the process goes quiet: idle and
// warm readings are taken after that.
const settleSeconds = Number(process.env.BENCH_MEMORY_SETTLE_SECONDS ?? 45)
const afterSeconds = Number(process.env.BENCH_MEMORY_AFTER_SECONDS ?? 60)
const split = process.env.BENCH_MEMORY_SPLIT === '1' || Boolean(process.env.BENCH_MEMORY_SNAPSHOTS)
const snapshots = process.env.BENCH_MEMORY_SNAPSHOTS

function rssMb(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'))
  return Math.round(Number(line.split(/\s+/)[1]) / 1024)
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

let counter = 0
function nextNumber() {
  counter = (counter + 1) % 10_000_000
  return `+336${String(10_000_000 + counter).slice(1).padStart(8, '0')}`
}

const randomText = (length) => Array.from({ length }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(Math.random() * 36)]).join('')
const json = { 'content-type': 'application/json' }
const OVERSIZE = JSON.stringify({ to: '+33612345678', body: 'x'.repeat(2.5 * 1024 * 1024) })
const MANY = Array.from({ length: 600 }, () => '+33612345678')

/**
 * A fuzzer's bad requests, the n-th of them: unknown routes and pages, wrong and missing API
 * keys, malformed JSON, invalid fields, wrong content types, bad query parameters, unknown ids,
 * wrong methods, failed sign-ins, Idempotency-Keys on refused sends, and now and then a body over
 * the 2 MiB cap. Every one answers 4xx, each with values of its own.
 */
const BAD_KINDS = [
  (n) => ({ method: 'GET', path: `/api/v1/${randomText(8)}/${n}?q=${randomText(6)}` }),
  (n) => ({ method: 'GET', path: `/wp-admin/${randomText(10)}-${n}.php` }),
  (n) => ({ method: 'GET', path: `/api/v1/messages?limit=${n}x&status=${randomText(5)}&cursor=${randomText(24)}`, key: 'valid' }),
  () => ({ method: 'GET', path: '/api/v1/messages', headers: { 'x-api-key': `sk_${randomText(40)}` } }),
  (n) => ({ method: 'POST', path: '/api/v1/messages', headers: { ...json, 'x-api-key': randomText(48) }, body: JSON.stringify({ to: nextNumber(), body: `hello ${n}` }) }),
  () => ({ method: 'GET', path: '/api/v1/devices' }),
  (n) => ({ method: 'POST', path: '/api/v1/messages', key: 'valid', headers: json, body: `{"to": "${nextNumber()}", "body": "${n}` }),
  (n) => ({ method: 'POST', path: '/api/v1/messages', key: 'valid', headers: json, body: JSON.stringify({ to: `not a number ${n}`, body: 'x' }) }),
  (n) => ({ method: 'POST', path: '/api/v1/messages', key: 'valid', headers: json, body: JSON.stringify({ to: nextNumber(), body: 'x', [`field${n}${randomText(2000)}`]: 1 }) }),
  () => ({ method: 'POST', path: '/api/v1/messages', key: 'valid', headers: json, body: JSON.stringify({ to: MANY, body: 'x' }) }),
  (n) => ({ method: 'POST', path: '/api/v1/messages', key: 'valid', headers: { ...json, 'idempotency-key': `idem-${n}-${randomText(16)}` }, body: JSON.stringify({ to: nextNumber(), body: 'x', simSlot: 'one' }) }),
  (n) => ({ method: 'POST', path: '/api/v1/messages', key: 'valid', headers: { 'content-type': 'text/plain' }, body: `to=${nextNumber()}&body=${n}` }),
  (n) => ({ method: 'POST', path: '/api/v1/messages', key: 'valid', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `to=${nextNumber()}&body=${randomText(40)}${n}` }),
  (n) => ({ method: 'GET', path: `/api/v1/messages/${1_000_000 + n}`, key: 'valid' }),
  (n) => ({ method: 'GET', path: `/api/v1/messages/${randomText(6)}%ff%fe${n}`, key: 'valid' }),
  (n) => ({ method: 'DELETE', path: `/health?x=${n}` }),
  (n) => ({ method: 'POST', path: '/api/v1/auth/login', headers: json, body: JSON.stringify({ email: `${randomText(10)}${n}@example.test`, password: randomText(12) }) }),
]

function badRequest(n, key) {
  // One in 200 is a body over the cap (each is 2.5 MB on the wire).
  const shape = n % 200 === 199 ? { method: 'POST', path: '/api/v1/messages', key: 'valid', headers: json, body: OVERSIZE } : BAD_KINDS[n % BAD_KINDS.length](n)
  const headers = { ...shape.headers, ...(shape.key === 'valid' ? { 'x-api-key': key } : {}) }
  return { method: shape.method, path: shape.path, headers, body: shape.body }
}

/** Runs autocannon; `amount` requests, or until `stop()` is called. */
function run(base, { connections, amount, setupRequest }) {
  let instance
  const done = new Promise((resolve, reject) => {
    instance = autocannon(
      { url: base, connections, ...(amount ? { amount } : { duration: 3600 }), requests: [{ method: 'GET', path: '/', setupRequest }] },
      (error, result) => (error ? reject(error) : resolve(result))
    )
  })
  return { done, stop: () => instance.stop() }
}

/** `bad` bad requests beside sends (which stop with them), sampling RSS every second. */
async function storm(gateway, key, bad) {
  let peak = 0
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(gateway.pid))), 1000)
  let next = 0
  const started = Date.now()
  const sends = run(gateway.base, {
    connections: 32,
    setupRequest: (request) => ({ ...request, method: 'POST', path: '/api/v1/messages', headers: { ...json, 'x-api-key': key }, body: JSON.stringify({ to: nextNumber(), body: 'Your code is 482913' }) }),
  })
  const refused = await run(gateway.base, { connections: 32, amount: bad, setupRequest: (request) => ({ ...request, ...badRequest(next++, key) }) }).done
  sends.stop()
  const sent = await sends.done
  clearInterval(sampler)
  const seconds = Math.round((Date.now() - started) / 1000)
  return { peak, seconds, bad: refused.requests.total, bad2xx: refused['2xx'], sends: sent['2xx'], errors: refused.errors + sent.errors }
}

/** CPU time of the process so far (every thread), in ms. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}

/** RSS sampled each second for `seconds` after the load stopped, and the CPU time each second. */
async function settle(pid, seconds) {
  const samples = []
  const cpu = []
  for (let second = 0; second < seconds; second++) {
    const before = cpuMs(pid)
    await sleep(1000)
    samples.push(rssMb(pid))
    cpu.push(Math.round(cpuMs(pid) - before))
  }
  return { last: samples.at(-1), min: Math.min(...samples), samples, cpu }
}

const inspectPort = split ? await freePort() : null
if (split) process.env.BENCH_GATEWAY_NODE_ARGS = `${process.env.BENCH_GATEWAY_NODE_ARGS ?? ''} --expose-gc --inspect=127.0.0.1:${inspectPort}`
const gateway = await startGateway()
const inspector = split ? await connectInspector(inspectPort) : null
const insides = []
async function inside(moment) {
  if (!inspector) return
  insides.push({ moment, ...(await inspector.memory()) })
}
async function snapshot(name) {
  if (!snapshots) return
  mkdirSync(snapshots, { recursive: true })
  const path = join(snapshots, `${name}.heapsnapshot`)
  await inspector.snapshot(path)
  console.log(`${path}: largest kinds (self size)`)
  console.table(heapSummary(JSON.parse(readFileSync(path, 'utf8'))))
}
try {
  await sleep(settleSeconds * 1000)
  const idle = rssMb(gateway.pid)
  await inside('idle')
  const key = await createApiKey(gateway.base, 'send')

  const warmUp = await storm(gateway, key, Math.round(badRequests / 10))
  const warm = await settle(gateway.pid, settleSeconds)
  await inside('after the warm-up')
  await snapshot('warm')
  const warmRss = rssMb(gateway.pid)

  const run = await storm(gateway, key, badRequests)
  await inside('end of the storm')
  const after = await settle(gateway.pid, afterSeconds)
  await inside(`${afterSeconds} s after`)
  await snapshot('after')
  if (inspector) {
    const collected = await inspector.memory({ collect: true })
    insides.push({ moment: `${afterSeconds} s after, then a full collection`, ...collected })
  }

  const table = [
    { moment: `idle, ${settleSeconds} s after start`, rssMb: idle },
    { moment: `warm-up (${warmUp.bad} bad requests, ${warmUp.sends} sends in ${warmUp.seconds} s), peak`, rssMb: warmUp.peak },
    { moment: `${settleSeconds} s after the warm-up`, rssMb: warm.last },
    { moment: `storm (${run.bad} bad requests, ${run.sends} sends in ${run.seconds} s), peak`, rssMb: run.peak },
    { moment: `${afterSeconds} s after the storm`, rssMb: after.last },
  ]
  console.log(`bench/memory.js: node ${process.version}${process.env.MALLOC_ARENA_MAX ? `, MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX}` : ''}`)
  console.table(table)
  if (insides.length) {
    console.log('inside the gateway (process.memoryUsage(), MB):')
    console.table(insides)
  }
  console.log(`RSS each second after the storm (MB): ${after.samples.join(' ')}`)
  console.log(`CPU time each second after the storm (ms): ${after.cpu.join(' ')}`)
  console.log(
    JSON.stringify({
      idleMb: idle,
      idleAimMet: idle <= 110,
      warmMb: warm.last,
      peakMb: run.peak,
      afterMb: after.last,
      backWithin30Mb: after.last - warm.last <= 30,
      badAnswered2xx: warmUp.bad2xx + run.bad2xx,
      socketErrors: warmUp.errors + run.errors,
      warmRssBeforeStorm: warmRss,
    })
  )
} finally {
  inspector?.close()
  await gateway.stop()
}
