import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import app from '@adonisjs/core/services/app'
import sqlite3 from 'sqlite3'
import { checkedFetch } from '#tests/helpers/answer_contract'
import { httpsCall } from '#tests/helpers/https_client'

/** The gateway as its own process, for tests of what only a real start and stop show. */
/** A port nothing listens on at this moment, on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

async function waitForHealth(port: number, child: ChildProcess, output: () => string, ca?: Buffer): Promise<void> {
  const deadline = Date.now() + 45_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the gateway exited early:\n${output()}`)
    try {
      const status = ca ? (await httpsCall(`https://127.0.0.1:${port}/health`, { ca })).status : (await fetch(`http://127.0.0.1:${port}/health`)).status
      if (status === 200) return
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`the gateway did not answer /health:\n${output()}`)
}

/**
 * Starts bin/server.ts as its own process, as `npm start` does (through the TS loader here).
 * `env` adds to its environment; with `ca` it serves https (its own TLS) and is awaited over
 * https, trusting that CA only.
 */
export async function startGateway(dataDir: string, options: { port?: number; env?: NodeJS.ProcessEnv; ca?: Buffer } = {}) {
  const port = options.port ?? (await freePort())
  const env: NodeJS.ProcessEnv = { ...process.env, GATEWAY_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production', ...options.env }
  delete env.APP_KEY
  const child = spawn(process.execPath, ['--import=ts-node-maintained/register/esm', 'bin/server.ts'], {
    cwd: app.appRoot.pathname,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  await waitForHealth(port, child, () => output, options.ca)
  return { child, port, output: () => output }
}

export function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code))
    child.kill(signal)
  })
}

export function query<T>(file: string, sql: string): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const database = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (openError) => {
      if (openError) return reject(openError)
      database.all(sql, (error, rows) => {
        database.close()
        error ? reject(error) : resolve(rows as T[])
      })
    })
  })
}


/** Signs up the first account and creates an API key through the API, as an operator does. */
export async function firstApiKey(port: number, scope: 'read' | 'send' | 'admin' = 'admin'): Promise<string> {
  const base = `http://127.0.0.1:${port}`
  const account = { email: 'owner@gateway.test', password: 'correct horse battery staple', name: 'Owner' }
  let answer = await checkedFetch(`${base}/api/v1/auth/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(account) })
  if (answer.status === 409) {
    answer = await checkedFetch(`${base}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(account) })
  }
  const jar = new Map(answer.headers.getSetCookie().map((line) => line.split(';')[0].split(/=(.*)/s).slice(0, 2) as [string, string]))
  const created = await checkedFetch(`${base}/api/v1/api-keys`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'cookie': [...jar].map(([key, value]) => `${key}=${value}`).join('; '),
      'x-xsrf-token': decodeURIComponent(jar.get('XSRF-TOKEN') ?? ''),
    },
    body: JSON.stringify({ name: `test ${scope} ${Date.now()}`, scope }),
  })
  if (created.status !== 201) throw new Error(`key creation answered ${created.status}`)
  return ((await created.json()) as { secret: string }).secret
}

/** Runs statements on a database file of the test's own (a backup it tampers with, say). */
export function execute(file: string, sql: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const database = new sqlite3.Database(file, (openError) => {
      if (openError) return reject(openError)
      database.exec(sql, (error) => database.close(() => (error ? reject(error) : resolve())))
    })
  })
}
