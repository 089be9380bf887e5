import { test } from '@japa/runner'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearDevices, pairingCode, pairPhone } from '#tests/helpers/devices'
import { eventually, settle, useDeviceJobs } from '#tests/helpers/phones'
import { useManualClock } from '#tests/helpers/clock'
import { clearMessaging, sendAs } from '#tests/helpers/messages'
import { FakeModem } from '#tests/helpers/fake_modem'

type Program = 'bin' | 'ace'

/**
 * The agent bin and `node ace phone:simulate` as an operator runs them, as real processes against
 * the test gateway: what they print and their exit status.
 */
test.group('Phone agent commands (real processes against the gateway)', (group) => {
  let dataDir: string
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearDevices()
    // The Ace process prepares its own runtime: never on the test run's data folder.
    dataDir = mkdtempSync(join(tmpdir(), 'agent-commands-'))
    return () => rmSync(dataDir, { recursive: true, force: true })
  })

  const gateway = () => process.env.GATEWAY_PUBLIC_URL!

  /** Runs one of the two commands; `until` lets a long-running one be stopped with SIGTERM, `spawned` hands the process over. */
  function run(program: Program, args: string[], until?: (output: string) => boolean, spawned?: (child: ChildProcess) => void) {
    const command =
      program === 'bin' ? ['--import=ts-node-maintained/register/esm', 'agent/bin/phone_agent.ts', ...args] : ['ace.js', 'phone:simulate', ...args]
    const child = spawn(process.execPath, command, {
      cwd: app.appRoot.pathname,
      env: { ...process.env, GATEWAY_DATA_DIR: dataDir, NODE_ENV: 'development' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    spawned?.(child)
    let output = ''
    const collect = (chunk: Buffer) => {
      output += chunk
      if (until?.(output)) child.kill('SIGTERM')
    }
    child.stdout.on('data', collect)
    child.stderr.on('data', collect)
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    return new Promise<{ status: number | null; lines: string[] }>((resolve) =>
      child.once('exit', (status) => {
        clearTimeout(killer)
        resolve({ status, lines: output.trim().split('\n') })
      })
    )
  }

  test('a refused pairing code: one clear line and a non-zero exit, from both commands', async ({ assert }) => {
    const results = await Promise.all((['bin', 'ace'] as const).map((program) => run(program, ['--gateway', gateway(), '--pair', 'BADCODE1'])))
    for (const [index, { status, lines }] of results.entries()) {
      assert.equal(status, 1, `${index}: ${lines.join('\n')}`)
      assert.lengthOf(lines, 1, lines.join('\n'))
      assert.match(lines[0], /pairing refused: INVALID_PAIRING_CODE/)
    }
  }).timeout(90_000)

  test('a credential the gateway refuses (unpaired phone): both stop, saying it must be paired again', async ({ client, assert }) => {
    const phone = await pairPhone(client)
    ;(await client.delete(`/api/v1/devices/${phone.device.id}`).header('x-api-key', testKeys.admin)).assertStatus(204)
    const results = await Promise.all((['bin', 'ace'] as const).map((program) => run(program, ['--gateway', gateway(), '--credential', phone.credential])))
    for (const { status, lines } of results) {
      assert.equal(status, 1, lines.join('\n'))
      assert.match(lines.at(-1)!, /401.*must be paired again/)
      assert.isFalse(lines.some((line) => line.includes('retrying')), lines.join('\n'))
    }
  }).timeout(90_000)

  test('with --state the credential is kept in the file, printed nowhere, and a restart needs only the file', async ({ client, assert }) => {
    const stateFile = join(dataDir, 'phone.json')
    const first = await run('bin', ['--gateway', gateway(), '--pair', await pairingCode(client), '--state', stateFile], (output) => output.includes('connected'))
    assert.equal(first.status, 0, first.lines.join('\n'))
    const kept = JSON.parse(readFileSync(stateFile, 'utf8')).credential
    assert.match(kept, /^dev_\d+\./)
    assert.isFalse(first.lines.some((line) => line.includes(kept)), first.lines.join('\n'))
    assert.equal(statSync(stateFile).mode & 0o777, 0o600)

    const again = await run('ace', ['--gateway', gateway(), '--state', stateFile], (output) => output.includes('connected'))
    assert.equal(again.status, 0, again.lines.join('\n'))
    assert.isTrue(again.lines.some((line) => line.includes('connected')), again.lines.join('\n'))
    const devices = (await client.get('/api/v1/devices').header('x-api-key', testKeys.read)).body().data
    assert.lengthOf(devices, 1)
  }).timeout(90_000)

  test('--driver modem: the documented command sets a modem up on its serial device, sends, gets its reports and what it receives', async ({ client, assert }) => {
    await clearMessaging()
    const modem = await FakeModem.start({ pin: '4821', operator: 'Test Mobile' })
    // The gateway's jobs (dispatch among them) on a manual clock, moved while the test waits.
    const manual = useManualClock(new Date())
    const jobs = await useDeviceJobs(manual.clock)
    const until = (condition: () => boolean | Promise<boolean>) =>
      eventually(async () => {
        await settle(manual.clock, jobs.runner, jobs.hub, [])
        return condition()
      }, 30_000)
    try {
      const device = await modem.serialDevice()
      const stateFile = join(dataDir, 'modem.json')
      const args = ['--gateway', gateway(), '--pair', await pairingCode(client), '--driver', 'modem', '--device', device, '--baud', '115200', '--state', stateFile]
      let agent: ChildProcess | null = null
      let connected = false
      const running = run('bin', [...args, '--pin', '4821'], (output) => (connected ||= output.includes('connected')) && false, (child) => (agent = child))
      await eventually(() => connected, 30_000)

      const id = (await sendAs(client, { to: '+33612345678', body: 'Through a serial modem' })).body().accepted[0].id
      modem.deliver({ from: '+447911123456', text: 'An answer through the modem' })
      await until(() => modem.submitted.length === 1 && modem.sentCommands('AT+CMGD=').length === 1)
      assert.equal(modem.submitted[0].submit.userData.text, 'Through a serial modem')
      modem.report({ messageReference: modem.submitted[0].mr, status: 0 })
      const status = async () => (await db.from('messages').where('id', id).first()).status
      await until(async () => (await status()) === 'delivered')
      agent!.kill('SIGTERM')
      const { status: exit, lines } = await running

      assert.equal(exit, 0, lines.join('\n'))
      assert.isTrue(modem.pinEntered)
      const received = await db.from('messages').where('direction', 'in').select('body')
      assert.deepEqual(received.map((row) => row.body), ['An answer through the modem'])
      const sims = await db.from('device_sims').select('operator')
      assert.deepEqual(sims.map((row) => row.operator), ['Test Mobile'])
      // Neither the PIN nor a full number in what it printed.
      assert.isFalse(lines.some((line) => /4821|33612345678|447911123456/.test(line)), lines.join('\n'))
      assert.isTrue(lines.some((line) => line.includes('sent')), lines.join('\n'))
    } finally {
      await jobs.stop()
      manual.restore()
      await modem.stop()
    }
  }).timeout(120_000)

  test('bad simulator flag values: one clear line and a non-zero exit', async ({ assert }) => {
    const cases: Array<[Program, string[], RegExp]> = [
      ['bin', ['--sims', '3'], /--sims must be a whole number from 1 to 2 \(got "3"\)/],
      ['bin', ['--driver', 'radio'], /--driver must be simulator, termux or modem/],
      ['ace', ['--failure-rate', '1.5'], /--failure-rate must be a number from 0 to 1 \(got "1.5"\)/],
      ['ace', ['--latency', 'slow'], /--latency must be a whole number from 0 to 60000/],
    ]
    const results = await Promise.all(cases.map(([program, args]) => run(program, ['--gateway', gateway(), '--pair', 'ANYCODE1', ...args])))
    for (const [index, { status, lines }] of results.entries()) {
      assert.equal(status, 1, lines.join('\n'))
      assert.lengthOf(lines, 1, lines.join('\n'))
      assert.match(lines[0], cases[index][2])
    }
  }).timeout(90_000)

  test('--sims and the other simulator flags reach the phone the gateway sees, from both commands', async ({ client, assert }) => {
    const codes = [await pairingCode(client), await pairingCode(client)]
    const flags = ['--latency', '0', '--failure-rate', '0', '--delivery-rate', '0.5', '--inbound-every', '0']
    const results = await Promise.all([
      run('bin', ['--gateway', gateway(), '--pair', codes[0], '--name', 'Bin phone', '--sims', '2', ...flags], (output) => output.includes('connected')),
      run('ace', ['--gateway', gateway(), '--pair', codes[1], '--name', 'Ace phone', '--sims', '2', ...flags], (output) => output.includes('connected')),
    ])
    for (const { status, lines } of results) assert.equal(status, 0, lines.join('\n'))
    await eventually(async () => (await client.get('/api/v1/devices').header('x-api-key', testKeys.read)).body().data.length === 2)
    const devices = (await client.get('/api/v1/devices').header('x-api-key', testKeys.read)).body().data
    const sims = Object.fromEntries(devices.map((device: any) => [device.name, device.sims.length]))
    assert.deepEqual(sims, { 'Bin phone': 2, 'Ace phone': 2 })
  }).timeout(90_000)
})
