import { test } from '@japa/runner'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import type { ApiClient } from '@japa/api-client'
import { testKeys } from '#tests/helpers/callers'
import { sendAs } from '#tests/helpers/messages'
import { eventually } from '#tests/helpers/phones'
import { SmsgateChannel } from '#modules/smsgate/channel/smsgate_channel'
import { parseAppMessageId } from '#modules/smsgate/channel/app_protocol'
import { smsgateCode, useSmsgateGateway } from '#tests/functional/smsgate/support/smsgate_phones'
import { AppStopped, SimulatedSmsgateApp } from '../../../agent/src/smsgate/simulated_app.js'
import { runSmsgatePhone } from '../../../agent/src/smsgate/run_smsgate_phone.js'
import { simulatorSettings } from '../../../agent/src/simulator_flags.js'

/**
 * The simulated SMSGate app (`node ace phone:simulate --app smsgate`) against the test gateway,
 * over real HTTP and a real event stream: as an operator runs it (a real process), and in this
 * process where a test needs to hold it at a given point.
 */
test.group('SMSGate simulator (phone:simulate --app smsgate)', (group) => {
  const world = useSmsgateGateway(group, [])
  let dataDir: string
  /** Simulated apps started in this process: stopped after each test, whatever its outcome. */
  let running: Array<{ stop(): Promise<void> }> = []
  group.each.setup(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'smsgate-simulator-'))
    running = []
    return async () => {
      await Promise.all(running.map((phone) => phone.stop()))
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
  const gateway = () => process.env.GATEWAY_PUBLIC_URL!
  const message = async (client: ApiClient, id: string) => (await client.get(`/api/v1/messages/${id}`).header('x-api-key', testKeys.read)).body()
  const devices = async (client: ApiClient) => (await client.get('/api/v1/devices').header('x-api-key', testKeys.read)).body().data
  /** The ids the app holds for a gateway message (one per hand-out), as the gateway made them. */
  const appIds = (phone: SimulatedSmsgateApp, messageId: string) => [...phone.messages.keys()].filter((id) => String(parseAppMessageId(id)?.messageId) === messageId)
  /** Where the app's copy of a gateway message stands (its only hand-out). */
  const stateOf = (phone: SimulatedSmsgateApp, messageId: string) => {
    const [id] = appIds(phone, messageId)
    return id === undefined ? undefined : phone.messages.get(id)?.state
  }
  /** Waits for a condition while the gateway's jobs run (they run on the test's manual clock). */
  const until = (condition: () => Promise<boolean> | boolean) =>
    eventually(async () => {
      await world.flush()
      return condition()
    }, 30_000)

  /** `node ace phone:simulate` as a real process; `stop()` sends SIGTERM and waits for its exit. */
  function command(args: string[]) {
    const child = spawn(process.execPath, ['ace.js', 'phone:simulate', '--app', 'smsgate', '--gateway', gateway(), ...args], {
      cwd: app.appRoot.pathname,
      env: { ...process.env, GATEWAY_DATA_DIR: dataDir, NODE_ENV: 'development' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const killer = setTimeout(() => child.kill('SIGKILL'), 80_000)
    running.push({ stop: async () => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')) })
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (status) => {
        clearTimeout(killer)
        resolve(status)
      })
    )
    return {
      output: () => output,
      exited,
      async stop() {
        child.kill('SIGTERM')
        return exited
      },
    }
  }

  test('pairs by code, takes an order, reports it delivered, posts a received SMS; with --state a restart reconnects without pairing', async ({ client, assert }) => {
    const { code } = await smsgateCode(client)
    const stateFile = join(dataDir, 'app.json')
    const first = command(['--pair', code, '--state', stateFile, '--sims', '2', '--latency', '0', '--inbound-every', '1'])
    await until(() => first.output().includes('connected'))
    let [device] = await devices(client)
    assert.deepInclude(device, { kind: 'smsgate', status: 'online' })
    assert.lengthOf(device.sims, 2)

    const id = (await sendAs(client, { to: '+33612345678', body: 'Through the simulated app' })).body().accepted[0].id
    await until(async () => (await message(client, id)).status === 'delivered')
    assert.deepInclude(await message(client, id), { deviceId: device.id, attempts: 1 })
    // Its generated replies come from the numbers it sent to, signed with the key GET /settings gave.
    await until(async () => (await db.from('messages').where('direction', 'in').where('phone', '+33612345678')).length > 0)
    const [received] = await db.from('messages').where('direction', 'in').select('device_id', 'body')
    assert.equal(String(received.device_id), device.id)
    assert.match(received.body, /^Simulated reply \d+$/)

    assert.equal(await first.stop(), 0, first.output())
    const kept = JSON.parse(readFileSync(stateFile, 'utf8'))
    assert.equal(statSync(stateFile).mode & 0o777, 0o600)
    assert.equal(kept.id, device.id)
    const keptIds = Object.keys(kept.messages).filter((appId) => String(parseAppMessageId(appId)?.messageId) === id)
    assert.lengthOf(keptIds, 1)
    assert.equal(kept.messages[keptIds[0]][0], 'Delivered')
    assert.notInclude(first.output(), kept.token)
    assert.notInclude(readFileSync(stateFile, 'utf8'), '+33612345678')

    // The state file alone: no pairing, the same phone, online again; a second order goes through.
    const again = command(['--state', stateFile, '--latency', '0'])
    await until(() => again.output().includes('connected'))
    assert.notInclude(again.output(), 'paired')
    ;[device] = await devices(client)
    assert.lengthOf(await devices(client), 1)
    assert.deepInclude(device, { kind: 'smsgate', status: 'online' })
    const second = (await sendAs(client, { to: '+33698765432', body: 'After a restart' })).body().accepted[0].id
    await until(async () => (await message(client, second)).status === 'delivered')
    assert.equal(await again.stop(), 0, again.output())
  }).timeout(120_000)

  test('a refused code: one clear line and a non-zero exit', async ({ assert }) => {
    const refused = command(['--pair', '12345678'])
    assert.equal(await refused.exited, 1)
    const lines = refused.output().trim().split('\n')
    assert.lengthOf(lines, 1, refused.output())
    assert.match(lines[0], /pairing refused/)
  }).timeout(90_000)

  test('a message still pending on the phone is dropped on MessageCancelled and never sent; an unpaired phone stops', async ({ client, assert }) => {
    const { code, apiUrl } = await smsgateCode(client)
    const lines: string[] = []
    const phone = await runSmsgatePhone(
      { gateway: apiUrl, pairingCode: code, simulator: { latency: '60000' }, reconnectDelayMs: () => 50 },
      (line) => lines.push(line)
    )
    running.push(phone)
    const channel = await app.container.make(SmsgateChannel)
    await until(() => channel.isConnected(Number(phone.app.id)))
    // The first goes to the radio (60 s), the second waits behind it, Pending, unreported.
    const sending = (await sendAs(client, { to: '+33612345678', body: 'On the radio' })).body().accepted[0].id
    await until(() => stateOf(phone.app, sending) === 'Processed')
    const waiting = (await sendAs(client, { to: '+33698765432', body: 'Behind it' })).body().accepted[0].id
    await until(() => stateOf(phone.app, waiting) === 'Pending')
    await until(async () => (await message(client, sending)).status === 'dispatched')

    // Unpaired: the gateway pushes MessageCancelled for what it has not heard of, then closes.
    ;(await client.delete(`/api/v1/devices/${phone.app.id}`).header('x-api-key', testKeys.admin)).assertStatus(204)
    await assert.rejects(() => phone.ended, /401/)
    await phone.ended.catch((error) => assert.instanceOf(error, AppStopped))
    assert.equal(stateOf(phone.app, waiting), 'Cancelled')
    assert.equal(stateOf(phone.app, sending), 'Processed')
    await phone.stop()
    assert.equal(phone.app.sentCount, 0)
    assert.isTrue(lines.some((line) => line.includes(`SMS ${appIds(phone.app, waiting)[0]} cancelled`)), lines.join('\n'))
  }).timeout(60_000)

  test('a closed stream is opened again after the wait, the counter back to 0 once open', async ({ client, assert }) => {
    const { code, apiUrl } = await smsgateCode(client)
    const waits: number[] = []
    const simulated = new SimulatedSmsgateApp({ apiUrl, settings: simulatorSettings({ latency: '0' }), reconnectDelayMs: (attempt) => (waits.push(attempt), 50) })
    running.push(simulated)
    await simulated.pair(code)
    const ended = simulated.start()
    const channel = await app.container.make(SmsgateChannel)
    const deviceId = Number(simulated.id)
    await until(() => channel.isConnected(deviceId))
    await channel.disconnect(deviceId, 'silent')
    await until(() => channel.isConnected(deviceId))
    await channel.disconnect(deviceId, 'silent')
    await until(() => channel.isConnected(deviceId))
    assert.deepEqual(waits, [1, 1])
    // Still the phone it was: an order goes through on the new stream.
    const id = (await sendAs(client, { to: '+33612345678', body: 'After two reconnections' })).body().accepted[0].id
    await until(async () => (await message(client, id)).status === 'delivered')
    assert.equal(simulated.sentCount, 1)
    await simulated.stop()
    await ended
  }).timeout(60_000)

  test('ids are opaque: a retry on the same phone is a new id and is sent; an id listed again before its report is not sent twice', async ({ client, assert }) => {
    const { code, apiUrl } = await smsgateCode(client)
    const lines: string[] = []
    // The first send fails on the radio; any later one goes. Each send takes a second, so the
    // orders behind it are still unreported when the next MessageEnqueued lists them again.
    const draws = [0]
    const simulated = new SimulatedSmsgateApp({
      apiUrl,
      settings: simulatorSettings({ 'latency': '1000', 'failure-rate': '0.5' }),
      random: () => draws.shift() ?? 0.99,
      log: (line) => lines.push(line),
    })
    running.push(simulated)
    await simulated.pair(code)
    const ended = simulated.start()
    const channel = await app.container.make(SmsgateChannel)
    await until(() => channel.isConnected(Number(simulated.id)))
    // One at a time: each is held (the radio busy with the one before) when the next is listed.
    const ids: string[] = []
    for (const body of ['Fails once', 'Second', 'Third']) {
      const id = (await sendAs(client, { to: '+33612345678', body })).body().accepted[0].id
      ids.push(id)
      await until(() => appIds(simulated, id).length > 0)
    }
    await until(async () => {
      await world.clock.advance(60_000)
      return (await Promise.all(ids.map(async (id) => (await message(client, id)).status))).every((status) => status === 'delivered')
    })
    // The one that failed was tried twice, under two ids.
    const stored = await Promise.all(ids.map((id) => message(client, id)))
    assert.deepEqual(stored.map((entry) => entry.attempts).sort(), [1, 1, 2])
    const retried = stored.find((entry) => entry.attempts === 2).id
    const handOuts = appIds(simulated, retried)
    assert.lengthOf(handOuts, 2)
    assert.deepEqual(handOuts.map((id) => simulated.messages.get(id)?.state), ['Failed', 'Delivered'])
    // Each id went to the radio once, however often it was listed before its first report.
    for (const id of simulated.messages.keys()) {
      assert.lengthOf(lines.filter((line) => line.startsWith(`SMS ${id} to`)), 1, lines.join('\n'))
    }
    assert.equal(simulated.sentCount, 3)
    await simulated.stop()
    await ended
  }).timeout(60_000)
})
