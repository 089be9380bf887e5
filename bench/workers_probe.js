#!/usr/bin/env node
// Do more cores pay for the send path? A self-contained probe of the gateway's hot
// request, `POST /api/v1/messages` with one recipient, served three ways:
//   single     one process, one thread: read the JSON body, check the API key (SHA-256 of the
//              key looked up in a Map), validate with VineJS and libphonenumber-js (the shape of
//              the gateway's send validator), then the write: group commit, every request of an
//              event-loop turn in one transaction and one multi-row INSERT, WAL, as the gateway
//              writes; answers 202.
//   cluster-N  node:cluster, N workers share the port and read, check and validate; each sends
//              the validated rows to the primary over IPC, which owns the one SQLite writer (the
//              same group commit) and confirms; the worker then answers 202.
//   threads-N  worker_threads: Node 20 has no SO_REUSEPORT for a thread's own server, so the
//              main thread keeps HTTP and the writer, and N threads take the raw body and the key
//              and do the JSON parse, key check and validation.
// Each variant runs in its own process tree, loaded by autocannon (64 connections, loopback)
// after a warm-up; the variants are alternated, BENCH_ROUNDS times, the second round in the
// reverse order. CPU time of every process and thread comes from /proc (bench/lib/process_cpu.js);
// autocannon's own from process.cpuUsage(), as it shares the machine's cores with the server.
//
//   node bench/workers_probe.js
//   BENCH_WORKERS=1,2,4,8 BENCH_SECONDS=10 BENCH_ROUNDS=2 node bench/workers_probe.js
//   BENCH_VARIANTS=single,cluster node bench/workers_probe.js     (skip the thread pool)
//   BENCH_EXTRA_US=250 node bench/workers_probe.js                (each request as heavy as a gateway's send)
//   BENCH_JSON=1 ...                                              (one JSON line per run)
import cluster from 'node:cluster'
import { fork } from 'node:child_process'
import { createHash, randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import http from 'node:http'
import { createRequire } from 'node:module'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker, isMainThread, parentPort } from 'node:worker_threads'
import vine from '@vinejs/vine'
import { parsePhoneNumberWithError } from 'libphonenumber-js/max'
import { summary } from './lib/gateway.js'

const require = createRequire(import.meta.url)
const self = fileURLToPath(import.meta.url)
const role = process.env.PROBE_ROLE ?? 'orchestrator'

// ---------------------------------------------------------------------------------------------
// What every variant does per request, wherever it runs.

/** 100 keys, as a gateway with a few accounts has; the probe's load uses the first. */
const KEY_COUNT = 100
const keySecret = (index) => `probe-key-${index}-${'x'.repeat(32)}`
const sha256 = (text) => createHash('sha256').update(text).digest('hex')
const keys = new Map(Array.from({ length: KEY_COUNT }, (_, index) => [sha256(keySecret(index)), { id: index + 1, scope: 'send' }]))

const refused = (status, code) => ({ status, error: code })

/**
 * BENCH_EXTRA_US: µs of CPU spent per request on the reading side, standing for what the
 * gateway's framework adds to a send and this probe lacks (router, middleware, the log line,
 * the container, promise machinery); README.md gives the gateway's own figures per request.
 */
const EXTRA_US = Number(process.env.BENCH_EXTRA_US ?? 0)
function frameworkWork() {
  if (!EXTRA_US) return
  const until = process.hrtime.bigint() + BigInt(EXTRA_US * 1000)
  while (process.hrtime.bigint() < until);
}

/** The gateway's rules for a number: E.164 in, E.164 out, possible for its country. */
function normalize(input) {
  if (typeof input !== 'string' || input.trim() === '') throw new Error('missing')
  const text = input.trim()
  if (!text.startsWith('+') || /[^\d\s().+-]/.test(text) || text.match(/\+/g).length > 1) throw new Error('not E.164')
  const parsed = parsePhoneNumberWithError(text)
  if (!parsed.isPossible()) throw new Error('not possible')
  return parsed.number
}

const recipients = vine.createRule((value, _options, field) => {
  const list = typeof value === 'string' ? [value] : value
  if (!Array.isArray(list) || list.length === 0 || list.length > 500) return field.report('1 to 500 numbers', 'recipients', field)
  const numbers = []
  for (const entry of list) {
    try {
      numbers.push(normalize(entry))
    } catch {
      return field.report('INVALID_PHONE', 'e164', field)
    }
  }
  field.mutate(numbers, field)
})

const messageText = vine.createRule(
  (value, _options, field) => {
    if (typeof value !== 'string' || value.trim() === '') field.report('EMPTY_BODY', 'body', field)
  },
  { implicit: true }
)

const sendValidator = vine.compile(
  vine.object({
    to: vine.any().use(recipients()),
    body: vine.any().use(messageText()).optional(),
    deviceId: vine.string().trim().minLength(1).maxLength(64).optional(),
    simSlot: vine.number({ strict: true }).in([0, 1]).optional(),
    category: vine.enum(['transactional', 'marketing']).optional(),
    shortenLinks: vine.boolean({ strict: true }).optional(),
  })
)

/** Read, check and validate: the rows to write, or the refusal. */
async function accept(raw, key) {
  const caller = typeof key === 'string' ? keys.get(sha256(key)) : undefined
  if (!caller) return refused(401, 'UNAUTHORIZED')
  frameworkWork()
  let json
  try {
    json = JSON.parse(raw)
  } catch {
    return refused(400, 'INVALID_JSON')
  }
  try {
    const send = await sendValidator.validate(json)
    const now = new Date().toISOString()
    return { status: 202, rows: send.to.map((phone) => [randomUUID(), caller.id, phone, send.body, now]) }
  } catch {
    return refused(422, 'VALIDATION_ERROR')
  }
}

function readBody(request) {
  return new Promise((resolve, reject) => {
    let raw = ''
    request.setEncoding('utf8')
    request.on('data', (chunk) => (raw += chunk))
    request.on('end', () => resolve(raw))
    request.on('error', reject)
  })
}

function answer(response, outcome) {
  const payload =
    outcome.status === 202
      ? { messages: outcome.rows.map(([id]) => ({ id, status: 'queued' })) }
      : { error: { code: outcome.error } }
  response.writeHead(outcome.status, { 'content-type': 'application/json' }).end(JSON.stringify(payload))
}

/** The HTTP side; `handle(raw, key)` resolves with the outcome to answer. */
function serve(port, handle) {
  const server = http.createServer(async (request, response) => {
    if (request.method !== 'POST' || request.url !== '/api/v1/messages') return response.writeHead(404).end()
    try {
      answer(response, await handle(await readBody(request), request.headers['x-api-key']))
    } catch {
      response.writeHead(500).end()
    }
  })
  server.keepAliveTimeout = 65_000
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)))
}

// ---------------------------------------------------------------------------------------------
// The one SQLite writer, with the gateway's group commit (every item of an event-loop turn in
// one transaction) and its pragmas.

function run(database, sql, params = []) {
  return new Promise((resolve, reject) => database.run(sql, params, (error) => (error ? reject(error) : resolve())))
}

async function openWriter(file) {
  const sqlite3 = require('sqlite3')
  const database = await new Promise((resolve, reject) => {
    const opened = new sqlite3.Database(file, (error) => (error ? reject(error) : resolve(opened)))
  })
  await new Promise((resolve, reject) =>
    database.exec(
      `PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;
       CREATE TABLE IF NOT EXISTS messages (id TEXT PRIMARY KEY, api_key_id INTEGER NOT NULL,
         phone TEXT NOT NULL, body TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'queued', created_at TEXT NOT NULL);
       CREATE INDEX IF NOT EXISTS messages_status_created ON messages (status, created_at);
       CREATE INDEX IF NOT EXISTS messages_phone ON messages (phone);`,
      (error) => (error ? reject(error) : resolve())
    )
  )
  let waiting = []
  let draining = null
  const ROWS_PER_STATEMENT = 500

  async function write(rows) {
    await run(database, 'BEGIN IMMEDIATE')
    try {
      for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
        const chunk = rows.slice(start, start + ROWS_PER_STATEMENT)
        await run(
          database,
          `INSERT INTO messages (id, api_key_id, phone, body, created_at) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
          chunk.flat()
        )
      }
      await run(database, 'COMMIT')
    } catch (error) {
      await run(database, 'ROLLBACK').catch(() => {})
      throw error
    }
  }

  async function drain() {
    while (waiting.length) {
      const batch = waiting
      waiting = []
      try {
        await write(batch.flatMap((item) => item.rows))
        for (const item of batch) item.resolve()
      } catch (error) {
        for (const item of batch) item.reject(error)
      }
    }
    draining = null
  }

  return {
    add(rows) {
      return new Promise((resolve, reject) => {
        waiting.push({ rows, resolve, reject })
        if (!draining) draining = new Promise((drained) => setImmediate(() => drain().then(drained)))
      })
    },
    async close() {
      while (draining) await draining
      const row = await new Promise((resolve, reject) =>
        database.get('SELECT COUNT(*) AS count FROM messages', (error, found) => (error ? reject(error) : resolve(found)))
      )
      await new Promise((resolve) => database.close(resolve))
      return row.count
    },
  }
}

// ---------------------------------------------------------------------------------------------
// The server side of each variant. The server process is forked by the orchestrator and tells it
// its pids once it listens; on 'stop' it waits for the writer, counts the rows and exits.

async function serverMain() {
  const variant = process.env.PROBE_VARIANT
  const workers = Number(process.env.PROBE_WORKERS ?? 1)
  const port = Number(process.env.PROBE_PORT)
  const writer = await openWriter(process.env.PROBE_DB)
  const children = []

  if (variant === 'single') {
    await serve(port, async (raw, key) => {
      const outcome = await accept(raw, key)
      if (outcome.status === 202) await writer.add(outcome.rows)
      return outcome
    })
  } else if (variant === 'cluster') {
    for (let index = 0; index < workers; index++) {
      const worker = cluster.fork({ PROBE_ROLE: 'cluster-worker' })
      // A worker stopped at the end of a run may still have a write confirmed after it is gone.
      const confirm = (n, ok) => worker.isConnected() && worker.send({ n, ok }, () => {})
      worker.on('message', (message) => {
        writer.add(message.rows).then(
          () => confirm(message.n, true),
          () => confirm(message.n, false)
        )
      })
      children.push(worker)
    }
    await Promise.all(children.map((worker) => new Promise((resolve) => worker.once('listening', resolve))))
  } else if (variant === 'threads') {
    const pending = new Map()
    let sequence = 0
    const pool = Array.from({ length: workers }, () => {
      const thread = new Worker(self, { env: { ...process.env, PROBE_ROLE: 'validator-thread' } })
      thread.on('message', ({ n, outcome }) => {
        const resolve = pending.get(n)
        pending.delete(n)
        resolve(outcome)
      })
      return thread
    })
    await serve(port, async (raw, key) => {
      const n = ++sequence
      const outcome = await new Promise((resolve) => {
        pending.set(n, resolve)
        pool[n % pool.length].postMessage({ n, raw, key })
      })
      if (outcome.status === 202) await writer.add(outcome.rows)
      return outcome
    })
    children.push(...pool)
  } else {
    throw new Error(`unknown variant ${variant}`)
  }

  process.send({ ready: true, pids: [process.pid, ...children.filter((child) => child.process).map((child) => child.process.pid)] })
  process.on('message', async (message) => {
    if (message !== 'stop') return
    for (const child of children) child.process ? child.kill() : await child.terminate()
    const rows = await writer.close()
    process.send({ rows }, () => process.exit(0))
  })
}

async function clusterWorkerMain() {
  const pending = new Map()
  let sequence = 0
  process.on('message', ({ n, ok }) => {
    const resolve = pending.get(n)
    pending.delete(n)
    resolve(ok)
  })
  // The port is the primary's: node:cluster hands this worker its share of the connections.
  await serve(Number(process.env.PROBE_PORT), async (raw, key) => {
    const outcome = await accept(raw, key)
    if (outcome.status !== 202) return outcome
    const n = ++sequence
    const ok = await new Promise((resolve) => {
      pending.set(n, resolve)
      process.send({ n, rows: outcome.rows })
    })
    return ok ? outcome : refused(500, 'WRITE_FAILED')
  })
}

function validatorThreadMain() {
  parentPort.on('message', async ({ n, raw, key }) => {
    parentPort.postMessage({ n, outcome: await accept(raw, key) })
  })
}

// ---------------------------------------------------------------------------------------------
// The orchestrator: one server process tree per run, autocannon in this process.

/** Busy and total jiffies of the whole machine, to say how loaded it was during a run. */
function machineTicks() {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/)
  const values = fields.map(Number)
  const idle = values[3] + values[4]
  const total = values.reduce((sum, value) => sum + value, 0)
  return { busy: total - idle, total }
}

async function startServer(variant, workers) {
  const { freePort } = await import('./lib/gateway.js')
  const folder = mkdtempSync(join(tmpdir(), 'workers-probe-'))
  const port = await freePort()
  const child = fork(self, [], {
    env: { ...process.env, PROBE_ROLE: 'server', PROBE_VARIANT: variant, PROBE_WORKERS: String(workers), PROBE_PORT: String(port), PROBE_DB: join(folder, 'probe.db') },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const { pids } = await new Promise((resolve, reject) => {
    child.once('message', resolve)
    child.once('exit', (code) => reject(new Error(`${variant} server exited with ${code}`)))
  })
  return {
    base: `http://127.0.0.1:${port}`,
    pids,
    async stop() {
      const { rows } = await new Promise((resolve) => {
        child.once('message', resolve)
        child.send('stop')
      })
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve()))
      rmSync(folder, { recursive: true, force: true })
      return rows
    },
  }
}

async function measure(name, variant, workers) {
  const { load, seconds } = await import('./lib/gateway.js')
  const { cpuSnapshot } = await import('./lib/process_cpu.js')
  const server = await startServer(variant, workers)
  const options = {
    url: `${server.base}/api/v1/messages`,
    method: 'POST',
    connections: 64,
    headers: { 'content-type': 'application/json', 'x-api-key': keySecret(0) },
    body: JSON.stringify({ to: ['+33612345678'], body: 'Your code is 123456' }),
  }
  try {
    await load({ ...options, duration: 2 })
    const before = server.pids.map(cpuSnapshot)
    const ownBefore = process.cpuUsage()
    const machineBefore = machineTicks()
    const result = await load(options)
    const machineAfter = machineTicks()
    const own = process.cpuUsage(ownBefore)
    const after = server.pids.map(cpuSnapshot)
    const requests = result.requests.total
    const perRequest = (cpuSeconds) => Math.round((1e6 * cpuSeconds) / requests)
    const [primary, ...rest] = after.map((snapshot, index) => ({
      main: snapshot.main - before[index].main,
      threads: snapshot.threads - before[index].threads,
    }))
    const workersCpu = rest.reduce((sum, cpu) => sum + cpu.main + cpu.threads, 0)
    const rows = await server.stop()
    return summary(name, result, {
      rowsWritten: rows,
      // µs of CPU per answered request: the primary (or only) process's main thread, its other
      // threads (SQLite on libuv's pool, V8's helpers, the validator threads), the cluster's workers.
      cpuUsPerRequest: perRequest(primary.main + primary.threads + workersCpu),
      primaryMainUs: perRequest(primary.main),
      primaryThreadsUs: perRequest(primary.threads),
      workersUs: perRequest(workersCpu),
      autocannonUs: perRequest((own.user + own.system) / 1e6),
      machineBusy: `${Math.round((100 * (machineAfter.busy - machineBefore.busy)) / (machineAfter.total - machineBefore.total))}%`,
      loadAverage: loadavg()[0].toFixed(1),
      seconds,
      extraUs: EXTRA_US,
    })
  } catch (error) {
    await server.stop().catch(() => {})
    throw error
  }
}

async function orchestrate() {
  const workerCounts = (process.env.BENCH_WORKERS ?? '1,2,4').split(',').map(Number).filter((count) => count > 0)
  const wanted = new Set((process.env.BENCH_VARIANTS ?? 'single,cluster,threads').split(','))
  const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
  const plan = []
  if (wanted.has('single')) plan.push(['single', 'single', 1])
  for (const count of workerCounts) if (wanted.has('cluster')) plan.push([`cluster-${count}`, 'cluster', count])
  for (const count of workerCounts) if (wanted.has('threads')) plan.push([`threads-${count}`, 'threads', count])

  console.log(`# ${cpus().length} cores, Node ${process.version}, load average ${loadavg()[0].toFixed(1)}, BENCH_EXTRA_US=${EXTRA_US}`)
  const results = []
  for (let round = 1; round <= rounds; round++) {
    for (const [name, variant, workers] of round % 2 ? plan : [...plan].reverse()) {
      const result = { round, ...(await measure(name, variant, workers)) }
      results.push(result)
      console.log(process.env.BENCH_JSON ? JSON.stringify(result) : result)
    }
  }
  if (!process.env.BENCH_JSON) {
    console.log('\n| Run | req/s | p50 / p99 ms | CPU µs/request (primary main / primary threads / workers) | autocannon µs/request | machine busy |')
    console.log('|---|---|---|---|---|---|')
    for (const r of results) {
      console.log(
        `| ${r.round}: ${r.name} | ${r.requestsPerSecond.toLocaleString('en')} | ${r.p50Ms} / ${r.p99Ms} | ${r.cpuUsPerRequest} (${r.primaryMainUs} / ${r.primaryThreadsUs} / ${r.workersUs}) | ${r.autocannonUs} | ${r.machineBusy} |`
      )
    }
  }
}

if (!isMainThread) validatorThreadMain()
else if (role === 'cluster-worker' || cluster.isWorker) await clusterWorkerMain()
else if (role === 'server') await serverMain()
else await orchestrate()
