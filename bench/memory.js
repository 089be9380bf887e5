#!/usr/bin/env node
// The gateway's resident memory (VmRSS from /proc): idle after start, after a warm-up, at the
// peak of a sustained run of bad requests and sends, and once the load stops — does it come
// back to within 20 MB of its warmed-up level? Loopback only.
//
//   node ace build && node bench/memory.js
//   BENCH_MEMORY_SECONDS=120 node bench/memory.js     # the sustained run, longer (default 60 s)
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import { createApiKey, startGateway } from './lib/gateway.js'

const sustainedSeconds = Number(process.env.BENCH_MEMORY_SECONDS ?? 60)
// V8's memory reducer gives the heap back some 20-30 s after the process goes quiet: readings
// are taken after that.
const settleSeconds = Number(process.env.BENCH_MEMORY_SETTLE_SECONDS ?? 45)

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

/** Bad requests of every kind a client gets wrong, with a valid key: each answers 4xx. */
const BAD_BODIES = [
  '{"to": "+33612345678", "body": ',
  JSON.stringify({ to: 'not a number', body: 'x' }),
  JSON.stringify({ to: '+33612345678', body: 'x', [`field${'x'.repeat(2000)}`]: 1 }),
  JSON.stringify({ to: Array.from({ length: 600 }, () => '+33612345678'), body: 'x' }),
  JSON.stringify({ to: '+33612345678', body: 'x', simSlot: 'one' }),
]

function load(base, key, kind, duration) {
  const headers = { 'content-type': 'application/json', 'x-api-key': key }
  let next = 0
  const setupRequest =
    kind === 'bad'
      ? (request) => ({ ...request, body: BAD_BODIES[next++ % BAD_BODIES.length] })
      : (request) => ({ ...request, body: JSON.stringify({ to: nextNumber(), body: 'Your code is 482913' }) })
  return new Promise((resolve, reject) => {
    autocannon(
      { url: base, connections: 32, duration, requests: [{ method: 'POST', path: '/api/v1/messages', headers, setupRequest }] },
      (error, result) => (error ? reject(error) : resolve(result))
    )
  })
}

/** Loads for `seconds`, bad requests and sends side by side, sampling RSS every second. */
async function sustained(gateway, key, seconds) {
  let peak = 0
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(gateway.pid))), 1000)
  const [bad, sends] = await Promise.all([load(gateway.base, key, 'bad', seconds), load(gateway.base, key, 'sends', seconds)])
  clearInterval(sampler)
  return { peak, bad: bad.requests.total, sends: sends.requests.total, errors: bad.errors + sends.errors }
}

/** RSS after the load stopped: sampled each second for `seconds`, the last value. */
async function settle(pid, seconds) {
  const samples = []
  for (let second = 0; second < seconds; second++) {
    await sleep(1000)
    samples.push(rssMb(pid))
  }
  return { last: samples.at(-1), min: Math.min(...samples) }
}

const gateway = await startGateway()
try {
  await sleep(settleSeconds * 1000)
  const idle = rssMb(gateway.pid)
  const key = await createApiKey(gateway.base, 'send')
  await sleep(settleSeconds * 1000)
  const idleWithKey = rssMb(gateway.pid)

  const warmUp = await sustained(gateway, key, 15)
  const warm = await settle(gateway.pid, settleSeconds)
  const run = await sustained(gateway, key, sustainedSeconds)
  const after = await settle(gateway.pid, settleSeconds)

  const table = [
    { moment: `idle, ${settleSeconds} s after start`, rssMb: idle },
    { moment: 'idle after sign-up and a key (scrypt)', rssMb: idleWithKey },
    { moment: `warm-up (15 s: ${warmUp.bad} bad requests, ${warmUp.sends} sends), peak`, rssMb: warmUp.peak },
    { moment: `${settleSeconds} s after the warm-up`, rssMb: warm.last },
    { moment: `sustained (${sustainedSeconds} s: ${run.bad} bad requests, ${run.sends} sends), peak`, rssMb: run.peak },
    { moment: `${settleSeconds} s after the sustained run`, rssMb: after.last },
  ]
  console.log(`bench/memory.js: node ${process.version}`)
  console.table(table)
  console.log(
    JSON.stringify({
      idleMb: idle,
      idleAimMet: idle <= 120,
      warmMb: warm.last,
      afterMb: after.last,
      returnedWithin20Mb: after.last - warm.last <= 20,
      socketErrors: warmUp.errors + run.errors,
    })
  )
} finally {
  await gateway.stop()
}
