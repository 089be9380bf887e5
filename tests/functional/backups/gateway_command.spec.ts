import { test } from '@japa/runner'
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import net from 'node:net'
import { join } from 'node:path'
import app from '@adonisjs/core/services/app'
import { firstApiKey, freePort } from '#tests/helpers/gateway_process'
import { PhoneAgent } from '../../../agent/src/phone_agent.js'
import { SimulatorDriver } from '../../../agent/src/drivers/simulator.js'
import { eventually } from '#tests/helpers/phones'
import { checkedFetch } from '#tests/helpers/answer_contract'
import { ALLOCATOR_ENVIRONMENT } from '#core/service/allocator_settings'

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * The `gateway` bin as an operator runs it: from a folder of their choice, on a data folder and
 * port given by the environment. Every run is a real process; the gateway it starts too.
 */
test.group('The gateway command', (group) => {
  let root: string
  let dataDir: string
  let port: number
  let env: NodeJS.ProcessEnv

  group.each.setup(async () => {
    root = mkdtempSync(join(tmpdir(), 'gateway-command-'))
    dataDir = join(root, 'data')
    port = await freePort()
    env = { ...process.env, GATEWAY_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' }
    delete env.APP_KEY
    delete env.NODE_ENV
    return () => {
      gateway('stop')
      rmSync(root, { recursive: true, force: true })
    }
  })

  function gateway(command: string, options: { extraEnv?: NodeJS.ProcessEnv; prefix?: string[] } = {}) {
    const bin = join(app.appRoot.pathname, 'bin', 'gateway.js')
    const [program, ...args] = [...(options.prefix ?? []), process.execPath, bin, ...command.split(' ')]
    const result = spawnSync(program, args, { cwd: root, env: { ...env, ...options.extraEnv }, encoding: 'utf8', timeout: 120_000 })
    return { status: result.status, output: `${result.stdout}${result.stderr}` }
  }
  const pid = () => Number(readFileSync(join(dataDir, 'gateway.pid'), 'utf8'))
  /** A fresh connection each time: a kept-alive one may still point at the process just stopped. */
  const health = async () => (await fetch(`http://127.0.0.1:${port}/health`, { dispatcher: new (await import('undici')).Agent() } as RequestInit)).status

  test('start, logs, stop: a background service with its pid file and log', async ({ assert }) => {
    const started = gateway('start')
    assert.equal(started.status, 0, started.output)
    assert.include(started.output, 'gateway started')
    assert.equal(await health(), 200)
    assert.isTrue(isAlive(pid()))
    // The server runs with the allocator's settings (docs/operations.md, Memory).
    const serverEnv = readFileSync(`/proc/${pid()}/environ`, 'utf8').split('\0')
    for (const [name, value] of Object.entries(ALLOCATOR_ENVIRONMENT)) assert.include(serverEnv, `${name}=${value}`)
    const again = gateway('start')
    assert.equal(again.status, 1)
    assert.include(again.output, 'already running')

    const logs = gateway('logs --no-follow --lines 3')
    assert.equal(logs.status, 0, logs.output)
    const lines = logs.output.trim().split('\n')
    assert.lengthOf(lines, 3)
    for (const line of lines) assert.property(JSON.parse(line), 'level')

    // `logs` follows: a line logged later shows up in a running `gateway logs`.
    const follower = spawn(process.execPath, [join(app.appRoot.pathname, 'bin', 'gateway.js'), 'logs', '--lines', '0'], { cwd: root, env })
    let followed = ''
    follower.stdout.on('data', (chunk) => (followed += chunk))
    try {
      await new Promise((resolve) => setTimeout(resolve, 3000))
      await checkedFetch(`http://127.0.0.1:${port}/api/v1/this-route-does-not-exist`)
      await eventually(() => followed.includes('this-route-does-not-exist'), 15_000)
    } finally {
      // Stopped like a service manager stops it: the command it runs goes too, none left behind.
      const command = execFileSync('ps', ['-o', 'pid=', '--ppid', String(follower.pid)], { encoding: 'utf8' }).trim()
      assert.match(command, /^\d+$/)
      follower.kill()
      await eventually(() => !isAlive(Number(command)), 10_000)
    }

    const running = pid()
    const stopped = gateway('stop')
    assert.equal(stopped.status, 0, stopped.output)
    assert.isFalse(isAlive(running))
    assert.isFalse(existsSync(join(dataDir, 'gateway.pid')))
    assert.include(gateway('stop').output, 'not running')
  }).timeout(120_000)

  test('start on a port another program holds fails with one line naming the port, exit 1; a reset connection is not an answer', async ({ assert }) => {
    // A program that takes connections and drops them without a word of HTTP.
    const squatter = net.createServer((socket) => socket.destroy())
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve))
    try {
      const started = gateway('start')
      assert.equal(started.status, 1, started.output)
      const lines = started.output.trim().split('\n').filter((line) => !/ExperimentalWarning|--trace-warnings|Unknown user config/.test(line))
      assert.lengthOf(lines, 1, started.output)
      assert.match(lines[0], new RegExp(`port ${port} is already in use`))
      assert.isFalse(existsSync(join(dataDir, 'gateway.pid')))
      // The console log has the gateway's own words as whole lines, not one word per line.
      const consoleLog = readFileSync(join(dataDir, 'logs', 'console.log'), 'utf8').trim().split('\n')
      assert.isTrue(consoleLog.some((line) => line.includes(`port ${port} is already in use`)), consoleLog.join('\n'))
      assert.isBelow(consoleLog.length, 5, consoleLog.join('\n'))
    } finally {
      await new Promise((resolve) => squatter.close(resolve))
    }
  }).timeout(120_000)

  test('stop when nothing runs says so and exits 0 (start when one runs: exit 1, tested above)', async ({ assert }) => {
    const stopped = gateway('stop')
    assert.equal(stopped.status, 0, stopped.output)
    assert.include(stopped.output, 'the gateway was not running')
  }).timeout(60_000)

  test('backup (as root) archives the whole data folder 0600, restarts; the archive restores phones and keys', async ({ assert }) => {
    assert.equal(gateway('start').status, 0)
    const key = await firstApiKey(port)
    const base = `http://127.0.0.1:${port}`
    const code = (await (await checkedFetch(`${base}/api/v1/devices/pairing-codes`, { method: 'POST', headers: { 'x-api-key': key } })).json()) as { code: string }
    const driver = new SimulatorDriver({})
    const paired = await PhoneAgent.pair(base, code.code, { name: 'Archived phone', sims: driver.sims() })
    const before = pid()

    const archived = gateway('backup')
    assert.equal(archived.status, 0, archived.output)
    const archives = readdirSync(root).filter((name) => /^gateway-backup-\d{8}-\d{6}\.tar\.gz$/.test(name))
    assert.lengthOf(archives, 1)
    const archive = join(root, archives[0])
    assert.equal(statSync(archive).mode & 0o777, 0o600)
    assert.equal(await health(), 200, 'answers again when the command returns')
    assert.notEqual(pid(), before, 'it was stopped for the copy and started again')
    const listed = spawnSync('tar', ['-tzf', archive], { encoding: 'utf8' }).stdout.split('\n')
    assert.includeMembers(listed, ['gateway.db', 'secret.key'])
    assert.notInclude(listed, 'gateway.pid')

    // Restore: stop, empty the data folder, extract, start.
    assert.equal(gateway('stop').status, 0)
    rmSync(dataDir, { recursive: true, force: true })
    mkdirSync(dataDir)
    assert.equal(spawnSync('tar', ['-xzf', archive, '-C', dataDir]).status, 0)
    assert.equal(gateway('start').status, 0)
    // The API key still works, and the phone connects with its old credential: the master key came back.
    assert.equal((await checkedFetch(`${base}/api/v1/auth/me`, { headers: { 'x-api-key': key } })).status, 200)
    const agent = new PhoneAgent({ gatewayUrl: base, credential: paired.credential, driver })
    await agent.connect()
    try {
      await eventually(async () => {
        const device = (await (await checkedFetch(`${base}/api/v1/devices/${paired.device.id}`, { headers: { 'x-api-key': key } })).json()) as { status: string }
        return device.status === 'online'
      }, 15_000)
    } finally {
      await agent.disconnect()
    }
  })
    .timeout(180_000)
    .skip(process.getuid?.() !== 0, 'gateway backup runs as root only')

  test('backup refuses to run except as root', async ({ assert }) => {
    const refused = gateway('backup', { prefix: ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] })
    assert.equal(refused.status, 1, refused.output)
    assert.include(refused.output, 'must run as root')
    assert.deepEqual(readdirSync(root).filter((name) => name.endsWith('.tar.gz')), [])
  })
    .timeout(60_000)
    .skip(process.getuid?.() !== 0, 'switching to another user (setpriv) needs root')
})
