#!/usr/bin/env node
// End to end through simulated phones, on the compiled gateway, beside GET /health in the same
// run. Loopback only. Measures:
//   - throughput: single-recipient sends at 64 connections for BENCH_SECONDS, with 10 simulated
//     phones (no quotas, no limits): messages accepted per second, and messages stored as `sent`
//     per second, counted in the gateway's database from the first accept until every accepted
//     message is stored as sent (the phones' reports received and written, not only sent);
//   - latency: from the 202 answer to the order reaching an idle phone, p50 and p99 over
//     BENCH_LATENCY_SENDS sends one at a time (default 1,000: with 200 the p99 was the
//     second-slowest send, and moved by several ms between runs);
//   - the bulk path: 500-recipient sends at 4 connections for BENCH_SECONDS, counted the same
//     way (messages stored as sent per second, end to end), the path campaigns use.
// The gateway's CPU (main thread, other threads) and this process's own (benchCpu: the load
// generator and the phones) are given as shares of one core.
// Then the same through BENCH_SMSGATE_PHONES simulated SMSGate Android apps (default 10; 0 skips
// them), in the same run, never connected beside the agents (each kind has the orders to
// itself): the app's own protocol over HTTP and its event stream (agent/src/smsgate), plus the
// time from the 202 to `MessageEnqueued` on the stream of an idle phone (acceptToEnqueuedMs);
// "the order reaching the phone" is then its `GET /message` answered with it (acceptToOrderMs).
// Both kinds' latencies are taken on a fresh database (the apps' first, then the agents'), the
// loads afterwards (the agents', then the apps'); each latency waits for an idle gateway.
//
// BENCH_SEED_MESSAGES=N seeds N messages (bench/seed_messages.js: sent and received, over 1,000
// conversations) into the gateway's database before the phones pair, so every figure is taken on
// a gateway that already carried them; the apps' fetch (`GET /message`, fetchMs) is timed too.
//
//   npm run bench            (builds, then runs every benchmark)
//   BENCH_SECONDS=20 node bench/phones.js
//   BENCH_SMSGATE_PHONES=0 node bench/phones.js       (agent phones only)
//   BENCH_SEED_MESSAGES=100000 node bench/phones.js   (on a database of 100,000 messages)
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { createApiKey, load, seconds, startGateway, summary, countRows } from './lib/gateway.js'
import { seedMessages } from './seed_messages.js'
import { cpuShare, cpuSnapshot } from './lib/process_cpu.js'
import { PhoneAgent } from '../build/agent/src/phone_agent.js'
import { SimulatorDriver } from '../build/agent/src/drivers/simulator.js'
import { SimulatedSmsgateApp } from '../build/agent/src/smsgate/simulated_app.js'
import { AppStateStore } from '../build/agent/src/smsgate/app_state.js'

const PHONES = 10
const SMSGATE_PHONES = Number(process.env.BENCH_SMSGATE_PHONES ?? 10)

/**
 * This process's own CPU (autocannon and the ten phones' agents) over `seconds`, as a share of
 * one core: on two cores, what the gateway cannot have.
 */
function benchShare(before, seconds) {
  const used = process.cpuUsage(before)
  return `${Math.round(((used.user + used.system) / 1e6 / seconds) * 100)}%`
}
const LATENCY_SENDS = Number(process.env.BENCH_LATENCY_SENDS ?? 1000)
let counter = 0
const nextNumber = () => `+336${String(10_000_000 + (++counter % 10_000_000)).slice(1).padStart(8, '0')}`

const SEED_MESSAGES = Number(process.env.BENCH_SEED_MESSAGES ?? 0)

let gateway = await startGateway()
if (SEED_MESSAGES > 0) {
  // Seeded while the gateway is stopped (its migrations made the tables), then started again on it.
  await gateway.stop({ keepData: true })
  await seedMessages(join(gateway.dataDir, 'gateway.db'), SEED_MESSAGES)
  gateway = await startGateway({ dataDir: gateway.dataDir })
}
const agents = []
const apps = []
try {
  const admin = await createApiKey(gateway.base, 'admin', 'bench admin')
  const headers = { 'content-type': 'application/json', 'x-api-key': admin }
  const storedSent = () => countRows(gateway.dataDir, "SELECT COUNT(*) AS count FROM messages WHERE status IN ('sent', 'delivered')")
  const percentile = (values, p) => +values[Math.min(values.length - 1, Math.floor((p / 100) * values.length))].toFixed(2)

  /**
   * Waits (20 s at most) until the gateway uses under 10% of a core over half a second: the
   * latency is measured on an idle gateway, not on one still writing the last load's reports.
   */
  async function quiet() {
    const deadline = performance.now() + 20_000
    while (performance.now() < deadline) {
      const before = cpuSnapshot(gateway.pid)
      await new Promise((resolve) => setTimeout(resolve, 500))
      const after = cpuSnapshot(gateway.pid)
      if (after.main + after.threads - before.main - before.threads < 0.05) return
    }
  }

  /**
   * 202 → each signal an idle phone gives, p50 and p99 over LATENCY_SENDS sends one at a time:
   * `signals` maps a name to a counter that grows when the phone gets the order.
   */
  async function latency(signals) {
    const times = Object.fromEntries(Object.keys(signals).map((name) => [name, []]))
    await quiet()
    for (let index = 0; index < LATENCY_SENDS; index++) {
      const before = Object.fromEntries(Object.entries(signals).map(([name, count]) => [name, count()]))
      const answer = await fetch(`${gateway.base}/api/v1/messages`, { method: 'POST', headers, body: JSON.stringify({ to: nextNumber(), body: 'ping' }) })
      const accepted = performance.now()
      if (answer.status !== 202) throw new Error(`send answered ${answer.status}`)
      await answer.arrayBuffer()
      const waiting = new Set(Object.keys(signals))
      while (waiting.size) {
        for (const name of waiting) {
          if (signals[name]() > before[name]) {
            times[name].push(performance.now() - accepted)
            waiting.delete(name)
          }
        }
        if (waiting.size) await new Promise((resolve) => setImmediate(resolve))
      }
    }
    return Object.fromEntries(
      Object.entries(times).map(([name, values]) => {
        values.sort((a, b) => a - b)
        return [name, { p50: percentile(values, 50), p99: percentile(values, 99) }]
      })
    )
  }

  /** Sends at `connections` for BENCH_SECONDS, then waits until every accepted message is stored as sent. */
  async function endToEnd(label, connections, recipients, body, drainMs) {
    const sentBefore = await storedSent()
    const cpuBefore = cpuSnapshot(gateway.pid)
    const benchCpuBefore = process.cpuUsage()
    const started = performance.now()
    const result = await load({
      url: `${gateway.base}/api/v1/messages`,
      connections,
      requests: [{ method: 'POST', path: '/api/v1/messages', headers, setupRequest: (request) => ({ ...request, body: body() }) }],
    })
    const accepted = (result.requests.total - result.non2xx) * recipients
    const deadline = performance.now() + drainMs
    let carried = (await storedSent()) - sentBefore
    while (carried < accepted && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      carried = (await storedSent()) - sentBefore
    }
    const elapsed = (performance.now() - started) / 1000
    const cpu = { ...cpuShare(cpuBefore, cpuSnapshot(gateway.pid), elapsed), benchCpu: benchShare(benchCpuBefore, elapsed) }
    return { row: summary(label, result, { storedSent: carried, endToEndPerSecond: Math.round(carried / elapsed), ...cpu }), accepted, carried }
  }

  const BULK = 500
  const single = () => JSON.stringify({ to: nextNumber(), body: 'Your code is 482913' })
  const bulkBody = () => JSON.stringify({ to: Array.from({ length: BULK }, nextNumber), body: 'Spring sale: 20% off this weekend' })

  // The SMSGate apps first, on a fresh database (or one holding only the seeded messages) as the
  // agents' latency has always been measured: paired, their latency taken, then let go until
  // their own loads.
  const smsgateSettings = { sims: [{ slot: 0, operator: 'Simulated' }], latencyMs: 0, failureRate: 0, deliveryRate: 0, inboundEveryMs: 0 }
  const smsgateCredentials = []
  let smsgateConnected = 0
  let enqueued = 0
  /** How long each app's `GET /message` took, while `timingFetches` (the apps' latency). */
  const fetchTimes = []
  let timingFetches = false
  /** Starts the SMSGate apps (paired once, then from their token, as after a restart of the app). */
  async function startApps() {
    smsgateConnected = 0
    for (const [index, kept] of smsgateCredentials.entries()) {
      const state = new AppStateStore()
      state.state = { ...kept, messages: {} }
      const app = new SimulatedSmsgateApp({ apiUrl: kept.apiUrl, settings: smsgateSettings, state, log: (line) => line === 'connected' && smsgateConnected++ })
      app.onEvent = (event) => event === 'MessageEnqueued' && enqueued++
      const call = app.call.bind(app)
      app.call = async (method, path, options) => {
        const started = performance.now()
        const answer = await call(method, path, options)
        if (timingFetches && method === 'GET' && path.startsWith('/message')) fetchTimes.push(performance.now() - started)
        return answer
      }
      void app.start().catch((error) => console.error(`smsgate phone ${index}: ${error.message}`))
      apps.push(app)
    }
    while (smsgateConnected < smsgateCredentials.length) await new Promise((resolve) => setTimeout(resolve, 20))
  }
  async function stopApps() {
    for (const app of apps.splice(0)) await app.stop()
  }
  let appLatency = null
  if (SMSGATE_PHONES > 0) {
    for (let index = 0; index < SMSGATE_PHONES; index++) {
      const answer = await fetch(`${gateway.base}/api/v1/devices/pairing-codes`, { method: 'POST', headers, body: JSON.stringify({ app: 'smsgate' }) })
      const { code, apiUrl } = await answer.json()
      const app = new SimulatedSmsgateApp({ apiUrl, name: `bench/smsgate${index}`, settings: smsgateSettings })
      await app.pair(code)
      smsgateCredentials.push({ apiUrl, id: app.id, token: app.token, login: app.login })
    }
    await startApps()
    const fetched = () => apps.reduce((total, app) => total + app.messages.size, 0)
    timingFetches = true
    appLatency = await latency({ enqueued: () => enqueued, order: fetched })
    timingFetches = false
    fetchTimes.sort((a, b) => a - b)
    appLatency.fetch = { p50: percentile(fetchTimes, 50), p99: percentile(fetchTimes, 99) }
    await stopApps()
  }

  // Our agent's phones (WebSocket).
  const drivers = []
  for (let index = 0; index < PHONES; index++) {
    const { code } = await (await fetch(`${gateway.base}/api/v1/devices/pairing-codes`, { method: 'POST', headers })).json()
    const driver = new SimulatorDriver({ deliveryRate: 0 })
    const paired = await PhoneAgent.pair(gateway.base, code, { name: `bench phone ${index}`, sims: driver.sims() })
    const agent = new PhoneAgent({ gatewayUrl: gateway.base, credential: paired.credential, driver })
    await agent.connect()
    agents.push(agent)
    drivers.push(driver)
  }
  const totalSent = () => drivers.reduce((total, driver) => total + driver.sent.length, 0)
  const agentLatency = await latency({ order: totalSent })
  const health = summary('GET /health', await load({ url: `${gateway.base}/health`, connections: 64 }))
  const sends = await endToEnd('POST /messages (1 recipient)', 64, 1, single, 60_000)
  const bulk = await endToEnd(`POST /messages (${BULK} recipients)`, 4, BULK, bulkBody, 120_000)

  console.log(`bench/phones.js: ${PHONES} simulated phones (agent), 64 connections (bulk: 4), ${seconds} s, node ${process.version}`)
  console.table([health, sends.row, bulk.row])
  console.log(
    JSON.stringify({ acceptToOrderMs: agentLatency.order, accepted: sends.accepted, carried: sends.carried, bulkAccepted: bulk.accepted, bulkCarried: bulk.carried, seededMessages: SEED_MESSAGES })
  )

  if (SMSGATE_PHONES > 0) {
    // The agents leave: every order now goes to an SMSGate app.
    for (const agent of agents.splice(0)) await agent.disconnect()
    await startApps()
    await quiet()
    const appHealth = summary('GET /health', await load({ url: `${gateway.base}/health`, connections: 64 }))
    const appSends = await endToEnd('POST /messages (1 recipient)', 64, 1, single, 60_000)
    const appBulk = await endToEnd(`POST /messages (${BULK} recipients)`, 4, BULK, bulkBody, 120_000)
    console.log(`bench/phones.js: ${SMSGATE_PHONES} simulated SMSGate apps (event stream and HTTP), 64 connections (bulk: 4), ${seconds} s`)
    console.table([appHealth, appSends.row, appBulk.row])
    console.log(
      JSON.stringify({
        smsgate: true,
        acceptToEnqueuedMs: appLatency.enqueued,
        acceptToOrderMs: appLatency.order,
        fetchMs: appLatency.fetch,
        seededMessages: SEED_MESSAGES,
        accepted: appSends.accepted,
        carried: appSends.carried,
        bulkAccepted: appBulk.accepted,
        bulkCarried: appBulk.carried,
      })
    )
  }
} finally {
  for (const agent of agents) await agent.disconnect()
  for (const app of apps) await app.stop()
  await gateway.stop()
}
