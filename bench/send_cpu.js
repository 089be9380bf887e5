#!/usr/bin/env node
// The gateway's CPU time per 500-recipient send, end to end: BENCH_SENDS sends (default 40) at 4
// connections through 10 simulated phones (our agent), counted from the first send until every
// message is stored as sent (or delivered, with BENCH_DELIVERY=1: a receipt for every message)
// and the gateway is idle again. The main thread and the other threads (SQLite's statements run
// on libuv's pool) are given apart, in ms per send. On a machine shared with other work, CPU
// time moves much less between runs than throughput does: compare builds with it, alternated.
//
//   node ace build && node bench/send_cpu.js
//   BENCH_DELIVERY=1 node bench/send_cpu.js
//   BENCH_DROP_COUNTER_TRIGGERS=1 node bench/send_cpu.js   (the statistics counters' triggers
//                                                          dropped on the running gateway: what they cost)
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { createApiKey, countRows, startGateway } from './lib/gateway.js'
import { cpuSnapshot } from './lib/process_cpu.js'
import { PhoneAgent } from '../build/agent/src/phone_agent.js'
import { SimulatorDriver } from '../build/agent/src/drivers/simulator.js'

const SENDS = Number(process.env.BENCH_SENDS ?? 40)
const WARM_UP = 4
const RECIPIENTS = 500
const CONNECTIONS = 4
const delivery = Boolean(process.env.BENCH_DELIVERY)
const COUNTER_TRIGGERS = ['message_volume_on_insert', 'message_volume_on_delete', 'message_volume_on_status', 'message_volume_on_move']
  .concat(['message_failures_on_insert', 'message_failures_on_delete', 'message_failures_on_update'])
  .concat(['message_latency_on_insert', 'message_latency_on_delete', 'message_latency_on_update'])

let counter = 0
const nextNumber = () => `+336${String(10_000_000 + (++counter % 10_000_000)).slice(1).padStart(8, '0')}`
const total = (snapshot) => snapshot.main + snapshot.threads

const gateway = await startGateway()
const agents = []
try {
  const admin = await createApiKey(gateway.base, 'admin', 'bench admin')
  const headers = { 'content-type': 'application/json', 'x-api-key': admin }
  if (process.env.BENCH_DROP_COUNTER_TRIGGERS) {
    const sqlite3 = createRequire(import.meta.url)('sqlite3')
    const database = new sqlite3.Database(join(gateway.dataDir, 'gateway.db'))
    await new Promise((resolve, reject) =>
      database.exec(COUNTER_TRIGGERS.map((name) => `DROP TRIGGER IF EXISTS ${name};`).join(' '), (error) => (error ? reject(error) : resolve()))
    )
    await new Promise((resolve) => database.close(resolve))
  }
  for (let index = 0; index < 10; index++) {
    const { code } = await (await fetch(`${gateway.base}/api/v1/devices/pairing-codes`, { method: 'POST', headers })).json()
    const driver = new SimulatorDriver({ deliveryRate: delivery ? 1 : 0 })
    const paired = await PhoneAgent.pair(gateway.base, code, { name: `bench phone ${index}`, sims: driver.sims() })
    const agent = new PhoneAgent({ gatewayUrl: gateway.base, credential: paired.credential, driver })
    await agent.connect()
    agents.push(agent)
  }
  const done = () =>
    countRows(gateway.dataDir, `SELECT COUNT(*) AS count FROM messages WHERE status IN (${delivery ? "'delivered'" : "'sent', 'delivered'"})`)

  /** `count` sends, then waits until their messages are stored as done and the gateway is idle. */
  async function sends(count) {
    const before = await done()
    let started = 0
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (started < count) {
          started++
          const body = JSON.stringify({ to: Array.from({ length: RECIPIENTS }, nextNumber), body: 'Spring sale: 20% off this weekend' })
          const answer = await fetch(`${gateway.base}/api/v1/messages`, { method: 'POST', headers, body })
          if (answer.status !== 202) throw new Error(`send answered ${answer.status}`)
          await answer.arrayBuffer()
        }
      })
    )
    while ((await done()) - before < count * RECIPIENTS) await new Promise((resolve) => setTimeout(resolve, 20))
    // Idle: under 5 % of a core over 300 ms (the last reports' announcements, live stream).
    for (;;) {
      const first = cpuSnapshot(gateway.pid)
      await new Promise((resolve) => setTimeout(resolve, 300))
      if (total(cpuSnapshot(gateway.pid)) - total(first) < 0.015) break
    }
  }

  await sends(WARM_UP)
  const before = cpuSnapshot(gateway.pid)
  await sends(SENDS)
  const after = cpuSnapshot(gateway.pid)
  const perSend = (seconds) => +((seconds * 1000) / SENDS).toFixed(1)
  console.log(
    `bench/send_cpu.js: ${SENDS} sends of ${RECIPIENTS} recipients, 10 simulated phones, ${delivery ? 'a receipt for every message' : 'no receipts'}` +
      `${process.env.BENCH_DROP_COUNTER_TRIGGERS ? ', counter triggers dropped' : ''}, node ${process.version}`
  )
  console.table([
    { mainMsPerSend: perSend(after.main - before.main), otherThreadsMsPerSend: perSend(after.threads - before.threads), totalMsPerSend: perSend(total(after) - total(before)) },
  ])
} finally {
  for (const agent of agents) await agent.disconnect()
  await gateway.stop()
}
