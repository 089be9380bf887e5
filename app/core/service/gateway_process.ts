import { spawn } from 'node:child_process'
import { request, type IncomingMessage } from 'node:http'
import { request as secureRequest } from 'node:https'
import { existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { DataFolder } from '#core/data_folder/data_folder'
import { withAllocatorSettings } from '#core/service/allocator_settings'

/** How long a stop may take: requests finish, jobs stop, the database is checkpointed. */
const STOP_TIMEOUT_MS = 60_000
const START_TIMEOUT_MS = 60_000

export interface GatewayProcessOptions {
  /** The application root: where build/bin/server.js (or bin/server.ts) lives. */
  appRoot: string
  folder: DataFolder
  /** Where /health answers: the configured port, on loopback. */
  port: number
  env?: NodeJS.ProcessEnv
  /** How long a start may take before /health answers (default 60 s). */
  startTimeoutMs?: number
}

/**
 * The gateway as a background service (the `gateway start | stop | restart` commands): one
 * process per data folder, its pid in `<data>/gateway.pid`, its log in `<data>/logs/gateway.log`
 * (what it cannot log itself, such as a crash at start, goes to `<data>/logs/console.log`).
 */
export class GatewayProcess {
  constructor(private options: GatewayProcessOptions) {}

  get pidFile() {
    return join(this.options.folder.root, 'gateway.pid')
  }

  get consoleLog() {
    return join(this.options.folder.logsDir, 'console.log')
  }

  /** The running gateway's pid, or null (a stale pid file is removed). */
  runningPid(): number | null {
    if (!existsSync(this.pidFile)) return null
    const pid = Number(readFileSync(this.pidFile, 'utf8').trim())
    if (Number.isSafeInteger(pid) && pid > 0 && isAlive(pid)) return pid
    rmSync(this.pidFile, { force: true })
    return null
  }

  /** Starts the compiled server detached and returns once /health answers. */
  async start(): Promise<number> {
    const running = this.runningPid()
    if (running) throw new Error(`the gateway is already running (pid ${running})`)
    this.options.folder.prepare()
    const console = openSync(this.consoleLog, 'a', 0o600)
    const child = spawn(process.execPath, this.#serverArguments(), {
      cwd: this.options.appRoot,
      env: withAllocatorSettings({ ...process.env, ...this.options.env, GATEWAY_DATA_DIR: this.options.folder.root, NODE_ENV: 'production' }),
      detached: true,
      // Its log lines go to logs/gateway.log already; standard output would only repeat them.
      stdio: ['ignore', 'ignore', console],
    })
    child.unref()
    writeFileSync(this.pidFile, `${child.pid}\n`, { mode: 0o600 })
    await this.#waitForHealth(child.pid!)
    return child.pid!
  }

  /**
   * The compiled server (`npm start` builds it); in a development checkout without a build, the
   * TypeScript sources through the loader the tests and `node ace` use.
   */
  #serverArguments(): string[] {
    const compiled = join(this.options.appRoot, 'build', 'bin', 'server.js')
    if (existsSync(compiled)) return [compiled]
    const source = join(this.options.appRoot, 'bin', 'server.ts')
    if (existsSync(source)) return ['--import=ts-node-maintained/register/esm', source]
    throw new Error('build/bin/server.js is missing: run `npm run build` (or `npm start` once) first')
  }

  /** SIGTERM, then waits for the process to finish its graceful stop. Resolves false when none ran. */
  async stop(): Promise<boolean> {
    const pid = this.runningPid()
    if (!pid) return false
    process.kill(pid, 'SIGTERM')
    const deadline = Date.now() + STOP_TIMEOUT_MS
    while (isAlive(pid)) {
      if (Date.now() > deadline) throw new Error(`the gateway (pid ${pid}) did not stop within ${STOP_TIMEOUT_MS / 1000} s`)
      await sleep(100)
    }
    rmSync(this.pidFile, { force: true })
    return true
  }

  async #waitForHealth(pid: number) {
    const timeoutMs = this.options.startTimeoutMs ?? START_TIMEOUT_MS
    const deadline = Date.now() + timeoutMs
    for (;;) {
      if (!isAlive(pid)) {
        rmSync(this.pidFile, { force: true })
        // The server's own last words (one line, e.g. "gateway cannot start: port 3000 is already in use").
        throw new Error(this.#lastConsoleLine() ?? `the gateway exited at start: see ${this.consoleLog} and ${this.options.folder.logFile}`)
      }
      if (await answersHealth(this.options.port, this.#servesTls())) return
      if (Date.now() > deadline) throw new Error(`the gateway did not answer on port ${this.options.port} within ${timeoutMs / 1000} s`)
      await sleep(200)
    }
  }

  /** With its own certificate files the gateway speaks https only on its port (README, Configuration). */
  #servesTls(): boolean {
    return Boolean({ ...process.env, ...this.options.env }.GATEWAY_TLS_CERT_FILE)
  }

  #lastConsoleLine(): string | null {
    try {
      const lines = readFileSync(this.consoleLog, 'utf8').trim().split('\n')
      return lines.reverse().find((line) => line.startsWith('gateway cannot start:')) ?? null
    } catch {
      return null
    }
  }
}

/**
 * Whether the gateway's /health answers 200 on loopback. Another program on the port that
 * takes the connection and drops it (or says nothing) is not an answer; every attempt ends
 * within 2 s either way.
 */
function answersHealth(port: number, overTls: boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const options = { host: '127.0.0.1', port, path: '/health', timeout: 2000 }
    const answered = (response: IncomingMessage) => {
      response.resume()
      resolve(response.statusCode === 200)
    }
    // The certificate names the gateway's public address, not 127.0.0.1, and may be signed by a
    // CA only the phones trust: this look at the process just started checks it answers, not who.
    const asked = overTls ? secureRequest({ ...options, rejectUnauthorized: false }, answered) : request(options, answered)
    asked.on('timeout', () => asked.destroy())
    asked.on('error', () => resolve(false))
    asked.end()
  })
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
