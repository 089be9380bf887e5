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
//
//   npm run bench            (builds, then runs every benchmark)
//   BENCH_SECONDS=20 node bench/phones.js
import { performance } from 'node:perf_hooks'
import { createApiKey, load, seconds, startGateway, summary, countRows } from './lib/gateway.js'
import { cpuShare, cpuSnapshot } from './lib/process_cpu.js'
import { PhoneAgent } from '../build/agent/src/phone_agent.js'
import { SimulatorDriver } from '../build/agent/src/drivers/simulator.js'

const PHONES = 10

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

const gateway = await startGateway()
const agents = []
try {
  const admin = await createApiKey(gateway.base, 'admin', 'bench admin')
  const headers = { 'content-type': 'application/json', 'x-api-key': admin }
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

  // Latency on idle phones: 202 → the order reaches a phone.
  const latencies = []
  for (let index = 0; index < LATENCY_SENDS; index++) {
    const before = totalSent()
    const started = performance.now()
    const answer = await fetch(`${gateway.base}/api/v1/messages`, { method: 'POST', headers, body: JSON.stringify({ to: nextNumber(), body: 'ping' }) })
    const accepted = performance.now()
    if (answer.status !== 202) throw new Error(`send answered ${answer.status}`)
    while (totalSent() === before) await new Promise((resolve) => setImmediate(resolve))
    latencies.push(performance.now() - accepted)
    void started
  }
  latencies.sort((a, b) => a - b)
  const percentile = (p) => +latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(2)

  const health = summary('GET /health', await load({ url: `${gateway.base}/health`, connections: 64 }))
  const storedSent = () => countRows(gateway.dataDir, "SELECT COUNT(*) AS count FROM messages WHERE status IN ('sent', 'delivered')")
  const sentBefore = await storedSent()
  const cpuBefore = cpuSnapshot(gateway.pid)
  const benchCpuBefore = process.cpuUsage()
  const loadStarted = performance.now()
  const sends = await load({
    url: `${gateway.base}/api/v1/messages`,
    connections: 64,
    requests: [{ method: 'POST', path: '/api/v1/messages', headers, setupRequest: (request) => ({ ...request, body: JSON.stringify({ to: nextNumber(), body: 'Your code is 482913' }) }) }],
  })
  const accepted = sends.requests.total - sends.non2xx
  // Wait until every accepted message is stored as sent (at most a minute).
  const deadline = performance.now() + 60_000
  let carried = (await storedSent()) - sentBefore
  while (carried < accepted && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    carried = (await storedSent()) - sentBefore
  }
  const elapsed = (performance.now() - loadStarted) / 1000
  const cpu = { ...cpuShare(cpuBefore, cpuSnapshot(gateway.pid), elapsed), benchCpu: benchShare(benchCpuBefore, elapsed) }

  // The bulk path: 500 recipients a send.
  const BULK = 500
  const bulkBody = () => JSON.stringify({ to: Array.from({ length: BULK }, nextNumber), body: 'Spring sale: 20% off this weekend' })
  const bulkSentBefore = await storedSent()
  const bulkCpuBefore = cpuSnapshot(gateway.pid)
  const bulkBenchCpuBefore = process.cpuUsage()
  const bulkStarted = performance.now()
  const bulk = await load({
    url: `${gateway.base}/api/v1/messages`,
    connections: 4,
    requests: [{ method: 'POST', path: '/api/v1/messages', headers, setupRequest: (request) => ({ ...request, body: bulkBody() }) }],
  })
  const bulkAccepted = (bulk.requests.total - bulk.non2xx) * BULK
  const bulkDeadline = performance.now() + 120_000
  let bulkCarried = (await storedSent()) - bulkSentBefore
  while (bulkCarried < bulkAccepted && performance.now() < bulkDeadline) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    bulkCarried = (await storedSent()) - bulkSentBefore
  }
  const bulkElapsed = (performance.now() - bulkStarted) / 1000
  const bulkCpu = { ...cpuShare(bulkCpuBefore, cpuSnapshot(gateway.pid), bulkElapsed), benchCpu: benchShare(bulkBenchCpuBefore, bulkElapsed) }

  console.log(`bench/phones.js: ${PHONES} simulated phones, 64 connections (bulk: 4), ${seconds} s, node ${process.version}`)
  console.table([
    health,
    summary('POST /messages (1 recipient)', sends, { storedSent: carried, endToEndPerSecond: Math.round(carried / elapsed), ...cpu }),
    summary(`POST /messages (${BULK} recipients)`, bulk, { storedSent: bulkCarried, endToEndPerSecond: Math.round(bulkCarried / bulkElapsed), ...bulkCpu }),
  ])
  console.log(JSON.stringify({ acceptToOrderMs: { p50: percentile(50), p99: percentile(99) }, accepted, carried, bulkAccepted, bulkCarried }))
} finally {
  for (const agent of agents) await agent.disconnect()
  await gateway.stop()
}
