#!/usr/bin/env node
// Kannel side by side with the gateway, in one run, on this machine (loopback only).
// First the ceiling: a bare Node HTTP server (its own process) that reads each POST body and
// answers 202, nothing else, at 64 connections. Then Kannel 1.4.5 (Debian: `apt-get install
// kannel kannel-extras`) with its fake SMSC and a file store takes single-recipient HTTP sends
// (cgi-bin/sendsms) at 64 connections; the fake SMSC counts what arrives. Then bench/phones.js
// runs the gateway with 10 simulated phones.
//
//   node ace build && node bench/kannel.js        (skipped with a message when Kannel is absent)
import { spawn, execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import { load, seconds, startBareServer, summary } from './lib/gateway.js'

const FAKESMSC = '/usr/lib/kannel/test/fakesmsc'
if (!existsSync('/usr/sbin/bearerbox') || !existsSync(FAKESMSC)) {
  console.log('bench/kannel.js: Kannel is not installed (apt-get install kannel kannel-extras); skipped')
  process.exit(0)
}

// The ceiling: Node's HTTP server doing nothing but reading the body, in its own process.
{
  const bare = await startBareServer()
  const result = await load({
    url: bare.url,
    connections: 64,
    requests: [{ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to: '+33612345678', body: 'Your code is 482913' }) }],
  })
  bare.stop()
  console.log(`bench/kannel.js: bare Node ${process.version} HTTP server (reads the body, answers 202), 64 connections, ${seconds} s`)
  console.table([summary('node:http doing nothing', result)])
}

const folder = mkdtempSync(join(tmpdir(), 'kannel-bench-'))
const config = join(folder, 'kannel.conf')
writeFileSync(
  config,
  `group = core
admin-port = 13000
admin-password = bench
smsbox-port = 13001
store-type = file
store-location = "${folder}/kannel.store"
log-level = 4
log-file = "${folder}/bearerbox.log"
box-allow-ip = "127.0.0.1"

group = smsc
smsc = fake
smsc-id = FAKE
port = 10000
connect-allow-ip = "127.0.0.1"

group = smsbox
bearerbox-host = 127.0.0.1
sendsms-port = 13013
log-level = 4
log-file = "${folder}/smsbox.log"

group = sendsms-user
username = bench
password = bench
default-sender = 1234
concatenation = false
max-messages = 1
`
)

const processes = []
const start = (command, args, output = 'ignore') => {
  // Unread pipes would fill and stall the boxes: only the fake SMSC's output is read.
  const child = spawn(command, args, { stdio: ['ignore', output, output] })
  processes.push(child)
  return child
}
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

try {
  start('/usr/sbin/bearerbox', [config])
  await pause(1000)
  start('/usr/sbin/smsbox', [config])
  // The fake SMSC sends nothing (one message a day) and counts what it receives.
  const smsc = start(FAKESMSC, ['-H', '127.0.0.1', '-r', '10000', '-i', '86400', '-m', '1', '123 456 text x'], 'pipe')
  let received = 0
  const count = (chunk) => (received += (String(chunk).match(/Got message/g) ?? []).length)
  smsc.stdout.on('data', count)
  smsc.stderr.on('data', count)
  await pause(2000)

  let counter = 0
  const started = performance.now()
  const before = received
  const result = await load({
    url: 'http://127.0.0.1:13013/cgi-bin/sendsms',
    connections: 64,
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => ({ ...request, path: `/cgi-bin/sendsms?username=bench&password=bench&to=336${String(10_000_000 + (++counter % 10_000_000)).slice(1)}&text=Your+code+is+482913` }),
      },
    ],
  })
  const accepted = result.requests.total - result.non2xx
  const deadline = performance.now() + 60_000
  while (received - before < accepted && performance.now() < deadline) await pause(50)
  const carried = received - before
  const elapsed = (performance.now() - started) / 1000
  console.log(`bench/kannel.js: Kannel 1.4.5, fake SMSC, file store, 64 connections, ${seconds} s`)
  console.table([summary('Kannel cgi-bin/sendsms', result, { receivedBySmsc: carried, endToEndPerSecond: Math.round(carried / elapsed) })])
} finally {
  for (const child of processes) child.kill('SIGTERM')
  await pause(2000)
  rmSync(folder, { recursive: true, force: true })
}

// The gateway in the same run, for the side-by-side figures.
execFileSync(process.execPath, [join(dirname(fileURLToPath(import.meta.url)), 'phones.js')], { stdio: 'inherit' })
