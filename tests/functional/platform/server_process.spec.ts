import { test } from '@japa/runner'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { spawn } from 'node:child_process'
import app from '@adonisjs/core/services/app'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { firstApiKey, query, startGateway, stop } from '#tests/helpers/gateway_process'
import { PhoneAgent } from '../../../agent/src/phone_agent.js'
import { SimulatorDriver } from '../../../agent/src/drivers/simulator.js'
import { checkedFetch } from '#tests/helpers/answer_contract'

test.group('The gateway as a process', (group) => {
  let root: string
  group.each.setup(() => {
    root = mkdtempSync(join(tmpdir(), 'gateway-process-'))
    return () => rmSync(root, { recursive: true, force: true })
  })

  test('first start on an empty machine creates the data folder, key and database, then serves', async ({ assert }) => {
    const dataDir = join(root, 'data')
    const { child } = await startGateway(dataDir)
    try {
      assert.isTrue(statSync(join(dataDir, 'backups')).isDirectory())
      assert.isTrue(statSync(join(dataDir, 'logs')).isDirectory())
      const key = statSync(join(dataDir, 'secret.key'))
      assert.equal(key.size, 32)
      assert.equal(key.mode & 0o777, 0o600)
      const journal = await query<{ journal_mode: string }>(join(dataDir, 'gateway.db'), 'PRAGMA journal_mode')
      assert.equal(journal[0].journal_mode, 'wal')
      const applied = await query<{ name: string }>(join(dataDir, 'gateway.db'), 'SELECT name FROM adonis_schema')
      assert.include(
        applied.map((row) => row.name),
        'database/migrations/0001_core_create_platform_tables'
      )
      // The master key never enters the database.
      const masterKeyHex = readFileSync(join(dataDir, 'secret.key')).toString('hex')
      assert.notInclude(readFileSync(join(dataDir, 'gateway.db')).toString('hex'), masterKeyHex)
    } finally {
      await stop(child, 'SIGTERM')
    }
  }).timeout(90_000)

  test('a file where the backups folder goes does not keep it from starting; a file where logs/ goes stops it with one line', async ({ assert }) => {
    const dataDir = join(root, 'data')
    mkdirSync(dataDir)
    writeFileSync(join(dataDir, 'backups'), 'not a folder')
    const { child } = await startGateway(dataDir)
    await stop(child, 'SIGTERM')

    const blocked = join(root, 'blocked')
    mkdirSync(blocked)
    writeFileSync(join(blocked, 'logs'), 'not a folder')
    const server = spawn(process.execPath, ['--import=ts-node-maintained/register/esm', 'bin/server.ts'], {
      cwd: app.appRoot.pathname,
      env: { ...process.env, GATEWAY_DATA_DIR: blocked, PORT: '1', HOST: '127.0.0.1', NODE_ENV: 'production', APP_KEY: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    server.stdout!.on('data', (chunk) => (output += chunk))
    server.stderr!.on('data', (chunk) => (output += chunk))
    const code = await new Promise<number | null>((resolve) => server.once('exit', resolve))
    assert.equal(code, 1)
    const lines = output.trim().split('\n').filter((line) => !/ExperimentalWarning|--trace-warnings|Unknown user config/.test(line))
    assert.deepEqual(lines, [`gateway cannot start: the data folder cannot be prepared: ${join(blocked, 'logs')} cannot be made a folder (EEXIST)`])
  }).timeout(90_000)

  test('SIGTERM and SIGINT stop it cleanly: exit 0, WAL checkpointed, a last log line', async ({ assert }) => {
    const dataDir = join(root, 'data')
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const { child, port } = await startGateway(dataDir)
      const keyBefore = readFileSync(join(dataDir, 'secret.key'))
      const answer = await checkedFetch(`http://127.0.0.1:${port}/api/v1/activity`)
      assert.equal(answer.status, 401)
      const code = await stop(child, signal)
      assert.equal(code, 0, `${signal} exit code`)
      const wal = join(dataDir, 'gateway.db-wal')
      assert.isTrue(!existsSync(wal) || statSync(wal).size === 0, `${signal}: the WAL is folded into gateway.db`)
      assert.include(readFileSync(join(dataDir, 'logs', 'gateway.log'), 'utf8'), 'gateway stopped')
      assert.isTrue(readFileSync(join(dataDir, 'secret.key')).equals(keyBefore), 'the master key survives restarts')
    }
  }).timeout(120_000)

  test('after sends (the dispatcher has read through its second connection), a stop leaves gateway.db alone: no -wal, no -shm', async ({ assert }) => {
    const dataDir = join(root, 'data')
    let key = ''
    for (let round = 0; round < 3; round++) {
      const { child, port } = await startGateway(dataDir)
      key ||= await firstApiKey(port, 'send')
      const sent = await checkedFetch(`http://127.0.0.1:${port}/api/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ to: '+33612345678', body: `Round ${round}` }),
      })
      assert.equal(sent.status, 202)
      // The send wakes the dispatcher, whose pass reads the due messages on the read connection.
      await new Promise((resolve) => setTimeout(resolve, 300))
      assert.equal(await stop(child, 'SIGTERM'), 0)
      assert.isFalse(existsSync(join(dataDir, 'gateway.db-wal')), `round ${round}: gateway.db-wal left behind`)
      assert.isFalse(existsSync(join(dataDir, 'gateway.db-shm')), `round ${round}: gateway.db-shm left behind`)
    }
  }).timeout(120_000)

  test('SIGTERM with a phone connected: its socket is closed and the gateway still stops at once', async ({ assert }) => {
    const dataDir = join(root, 'data')
    const { child, port } = await startGateway(dataDir)
    const base = `http://127.0.0.1:${port}`
    const setup = await checkedFetch(`${base}/api/v1/auth/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@gateway.test', password: 'a long passphrase', name: 'Owner' }),
    })
    const jar = new Map(setup.headers.getSetCookie().map((line) => line.split(';')[0].split(/=(.*)/s).slice(0, 2) as [string, string]))
    const code = await checkedFetch(`${base}/api/v1/devices/pairing-codes`, {
      method: 'POST',
      headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '), 'x-xsrf-token': decodeURIComponent(jar.get('XSRF-TOKEN') ?? '') },
    })
    assert.equal(code.status, 201)
    const driver = new SimulatorDriver()
    const paired = await PhoneAgent.pair(base, ((await code.json()) as { code: string }).code, { name: 'Phone', sims: driver.sims() })
    const agent = new PhoneAgent({ gatewayUrl: base, credential: paired.credential, driver })
    await agent.connect()
    const started = Date.now()
    const exitCode = await stop(child, 'SIGTERM')
    assert.equal(exitCode, 0)
    assert.isBelow(Date.now() - started, 10_000)
    assert.isFalse(agent.connected)
    const [device] = await query<{ status: string }>(join(dataDir, 'gateway.db'), 'SELECT status FROM devices')
    assert.equal(device.status, 'offline')
  }).timeout(90_000)
})
