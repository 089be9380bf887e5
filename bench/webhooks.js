#!/usr/bin/env node
// Webhook deliveries on the compiled gateway, to receivers in a network namespace of the
// benchmark's own (private addresses, so the gateway's real destination policy applies).
// Needs root and iproute2 (`ip netns`). Events are real: each DELETE /api/v1/messages/{id}
// emits message.deleted.
//   1. throughput: 10 webhooks to fast receivers, 2,000 events at once = 20,000 signed
//      deliveries; deliveries per second until the last one arrived
//   2. latency from the event to its arrival at a healthy receiver, events paced at 200/s,
//      p50/p99; then the same with a second webhook whose receiver never answers
//
//   npm run bench:webhooks     (builds first)     BENCH_EVENTS=4000 node bench/webhooks.js
import { createApiKey, startGateway } from './lib/gateway.js'
import { createNamespace } from './lib/network_namespace.js'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000)
const FAST_WEBHOOKS = 10
const PACE_PER_SECOND = 200
const SECRET = 'bench-webhook-secret-0123456789'
const FAST_PORT = 9001
const HUNG_PORT = 9100

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

const namespace = createNamespace()
const receivers = []
let gateway
try {
  for (let index = 0; index < FAST_WEBHOOKS; index++) receivers.push(await startReceiver(FAST_PORT + index, 'fast'))
  receivers.push(await startReceiver(HUNG_PORT, 'hang'))
  gateway = await startGateway()
  const key = await createApiKey(gateway.base, 'admin')
  const api = (method, path, body) =>
    fetch(`${gateway.base}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    })

  const ids = await seedMessages(api, EVENTS * 3)
  const batches = [ids.slice(0, EVENTS), ids.slice(EVENTS, 2 * EVENTS), ids.slice(2 * EVENTS)]

  // 1. Throughput.
  const hooks = []
  for (let index = 0; index < FAST_WEBHOOKS; index++) hooks.push(await createWebhook(api, `fast ${index}`, FAST_PORT + index))
  await stats(FAST_PORT)
  const startedAt = Date.now()
  await deleteAll(api, batches[0], 32)
  const deletedAt = Date.now()
  const expected = EVENTS * FAST_WEBHOOKS
  let received = 0
  let bad = 0
  while (received < expected) {
    await sleep(50)
    for (let index = 0; index < FAST_WEBHOOKS; index++) {
      const answer = await stats(FAST_PORT + index)
      received += answer.count
      bad += answer.badSignatures
    }
    if (Date.now() - startedAt > 300_000) throw new Error(`only ${received} of ${expected} deliveries arrived`)
  }
  const elapsed = (Date.now() - startedAt) / 1000
  for (const id of hooks) await api('DELETE', `/api/v1/webhooks/${id}`)

  // 2. Latency to a healthy receiver, without then with a hung one beside it.
  const healthyHook = await createWebhook(api, 'healthy', FAST_PORT)
  const alone = await pacedLatency(api, batches[1], FAST_PORT)
  await createWebhook(api, 'never answers', HUNG_PORT)
  const besideHung = await pacedLatency(api, batches[2], FAST_PORT)
  void healthyHook

  console.log(`bench/webhooks.js: node ${process.version}, ${EVENTS} events per part`)
  console.table([
    {
      part: `throughput, ${FAST_WEBHOOKS} webhooks`,
      deliveries: expected,
      badSignatures: bad,
      seconds: +elapsed.toFixed(2),
      deliveriesPerSecond: Math.round(expected / elapsed),
      eventsPerSecond: Math.round(EVENTS / ((deletedAt - startedAt) / 1000)),
    },
    { part: `latency, ${PACE_PER_SECOND} events/s, healthy receiver alone`, deliveries: alone.count, p50Ms: alone.p50, p99Ms: alone.p99, maxMs: alone.max },
    { part: 'latency, same, beside a receiver that never answers', deliveries: besideHung.count, p50Ms: besideHung.p50, p99Ms: besideHung.p99, maxMs: besideHung.max },
  ])
} finally {
  await gateway?.stop()
  for (const receiver of receivers) receiver.kill()
  namespace.destroy()
}

async function startReceiver(port, mode) {
  const child = namespace.spawn(process.execPath, [new URL('./lib/webhook_receiver.js', import.meta.url).pathname, namespace.address, String(port), mode, SECRET], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve)
    child.once('exit', () => reject(new Error('a receiver did not start')))
  })
  return child
}

async function stats(port) {
  return (await fetch(`http://${namespace.address}:${port}/__stats`)).json()
}

async function createWebhook(api, name, port) {
  const answer = await api('POST', '/api/v1/webhooks', { name, url: `http://${namespace.address}:${port}/hook`, events: ['message.deleted'], secret: SECRET })
  if (answer.status !== 201) throw new Error(`webhook creation answered ${answer.status}: ${await answer.text()}`)
  return (await answer.json()).webhook.id
}

/** Queues messages (no phone is paired: they wait) and reads their ids back. */
async function seedMessages(api, count) {
  let counter = 0
  for (let sent = 0; sent < count; sent += 500) {
    const to = Array.from({ length: Math.min(500, count - sent) }, () => `+3361${String(++counter).padStart(7, '0')}`)
    const answer = await api('POST', '/api/v1/messages', { to, body: 'Benchmark message' })
    if (answer.status !== 202) throw new Error(`send answered ${answer.status}`)
  }
  const ids = []
  let cursor = null
  do {
    const page = await (await api('GET', `/api/v1/messages?limit=200${cursor ? `&cursor=${cursor}` : ''}`)).json()
    ids.push(...page.data.map((message) => message.id))
    cursor = page.nextCursor
  } while (cursor)
  return ids
}

async function deleteAll(api, ids, concurrency) {
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < ids.length) {
        const answer = await api('DELETE', `/api/v1/messages/${ids[next++]}`)
        if (answer.status !== 204) throw new Error(`delete answered ${answer.status}`)
      }
    })
  )
}

async function pacedLatency(api, ids, port) {
  await stats(port)
  const perTick = PACE_PER_SECOND / 10
  const deletions = []
  for (let index = 0; index < ids.length; index += perTick) {
    deletions.push(deleteAll(api, ids.slice(index, index + perTick), perTick))
    await sleep(100)
  }
  await Promise.all(deletions)
  const latencies = []
  const deadline = Date.now() + 120_000
  while (latencies.length < ids.length && Date.now() < deadline) {
    await sleep(100)
    latencies.push(...(await stats(port)).latenciesMs)
  }
  return { count: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: Math.max(...latencies) }
}
