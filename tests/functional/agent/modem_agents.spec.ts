import { test } from '@japa/runner'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import type { ApiClient } from '@japa/api-client'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearDevices, pairingCode } from '#tests/helpers/devices'
import { eventually, settle, useDeviceJobs } from '#tests/helpers/phones'
import { useManualClock } from '#tests/helpers/clock'
import { clearMessaging, sendAs } from '#tests/helpers/messages'
import { FakeModem } from '#tests/helpers/fake_modem'
import { Deliver, utils } from 'node-pdu'
import { oracleSubmit, WHOLE_TEXTS } from '../../unit/agent/pdu_oracle.js'

/** The agent bin as an operator runs it, a real process; its output collected as it comes. */
function agentProcess(args: string[], env: Record<string, string> = {}) {
  const child: ChildProcess = spawn(process.execPath, ['--import=ts-node-maintained/register/esm', 'agent/bin/phone_agent.ts', ...args], {
    cwd: app.appRoot.pathname,
    env: { ...process.env, NODE_ENV: 'development', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  const killer = setTimeout(() => child.kill('SIGKILL'), 150_000)
  const exited = new Promise<{ status: number | null; lines: string[] }>((resolve) =>
    child.once('exit', (status) => {
      clearTimeout(killer)
      resolve({ status, lines: output.trim().split('\n') })
    })
  )
  return {
    get output() {
      return output
    },
    /** Lines printed after the first `from` characters. */
    printed: (pattern: RegExp, from = 0) => pattern.test(output.slice(from)),
    exited,
    stop() {
      child.kill('SIGTERM')
      return exited
    },
  }
}

async function devices(client: ApiClient): Promise<Array<{ id: string; name: string; status: string }>> {
  return (await client.get('/api/v1/devices').header('x-api-key', testKeys.read)).body().data
}

test.group('Several modems in one agent process (--config), against the gateway', (group) => {
  let folder: string
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearDevices()
    await clearMessaging()
    folder = mkdtempSync(join(tmpdir(), 'modem-agents-'))
    return () => rmSync(folder, { recursive: true, force: true })
  })

  test('two modems: each pairs as its own phone and sends its own orders; one unplugged leaves the other sending; a restart needs only the file', async ({ client, assert }) => {
    const modems = [await FakeModem.start({ operator: 'Mobile A' }), await FakeModem.start({ operator: 'Mobile B', pin: '4821' })]
    const manual = useManualClock(new Date())
    const jobs = await useDeviceJobs(manual.clock)
    const until = (condition: () => boolean | Promise<boolean>) =>
      eventually(async () => {
        await settle(manual.clock, jobs.runner, jobs.hub, [])
        return condition()
      }, 60_000)
    let agent: ReturnType<typeof agentProcess> | null = null
    try {
      // by-id style links, as udev makes them: the path stays when the modem comes back.
      const links = [join(folder, 'usb-Fake_Modem_A-if02-port0'), join(folder, 'usb-Fake_Modem_B-if02-port0')]
      for (const [index, modem] of modems.entries()) await modem.serialDevice(links[index])
      const config = join(folder, 'modems.json')
      writeFileSync(
        config,
        JSON.stringify({
          gateway: process.env.GATEWAY_PUBLIC_URL,
          modems: [
            { name: 'Modem A', device: links[0], baud: 115200, state: 'a.json', pair: await pairingCode(client) },
            { name: 'Modem B', device: links[1], baud: 115200, pin: '4821', state: 'b.json', pair: await pairingCode(client) },
          ],
        }),
        { mode: 0o600 }
      )
      agent = agentProcess(['--config', config])
      await eventually(() => agent!.printed(/Modem A: connected/) && agent!.printed(/Modem B: connected/), 60_000)
      const paired = await devices(client)
      assert.sameMembers(paired.map((device) => device.name), ['Modem A', 'Modem B'])
      const idOf = (name: string) => paired.find((device) => device.name === name)!.id
      const sims = await db.from('device_sims').join('devices', 'devices.id', 'device_sims.device_id').select('devices.name', 'device_sims.operator')
      assert.sameDeepMembers(sims, [{ name: 'Modem A', operator: 'Mobile A' }, { name: 'Modem B', operator: 'Mobile B' }])
      // Each credential in its own state file, none printed.
      const credentials = ['a.json', 'b.json'].map((file) => JSON.parse(readFileSync(join(folder, file), 'utf8')).credential)
      assert.notEqual(credentials[0], credentials[1])
      assert.isFalse(credentials.some((credential) => agent!.output.includes(credential)))

      await sendAs(client, { to: '+33612345678', body: 'From modem A', deviceId: idOf('Modem A') }).then((response) => response.assertStatus(202))
      await sendAs(client, { to: '+33699999999', body: 'From modem B', deviceId: idOf('Modem B') }).then((response) => response.assertStatus(202))
      await until(() => modems[0].submitted.length === 1 && modems[1].submitted.length === 1)
      assert.equal(modems[0].submitted[0].submit.userData.text, 'From modem A')
      assert.equal(modems[1].submitted[0].submit.userData.text, 'From modem B')
      await until(async () => (await db.from('messages').where('status', 'sent').count('* as n').first()).n === 2)

      modems[1].unplug()
      await eventually(() => agent!.printed(/Modem B: modem: the serial device went away/), 30_000)
      const statusOf = async (name: string) => (await devices(client)).find((device) => device.name === name)!.status
      await until(async () => (await statusOf('Modem B')) === 'offline')
      assert.equal(await statusOf('Modem A'), 'online')
      await sendAs(client, { to: '+33612345678', body: 'Still from modem A', deviceId: idOf('Modem A') }).then((response) => response.assertStatus(202))
      await until(() => modems[0].submitted.length === 2)
      assert.equal(modems[0].submitted[1].submit.userData.text, 'Still from modem A')
      assert.lengthOf(modems[1].submitted, 1)

      const first = await agent.stop()
      assert.equal(first.status, 0, first.lines.join('\n'))
      assert.isFalse(first.lines.some((line) => /4821|33612345678|33699999999/.test(line)), first.lines.join('\n'))

      // The same file again (its codes used up): each modem connects with its state file.
      modems[1].plugIn()
      await modems[1].serialDevice(links[1])
      agent = agentProcess(['--config', config])
      await eventually(() => agent!.printed(/Modem A: connected/) && agent!.printed(/Modem B: connected/), 60_000)
      assert.lengthOf(await devices(client), 2)
      assert.isFalse(agent.printed(/paired as device/), agent.output)
    } finally {
      await agent?.stop()
      await jobs.stop()
      manual.restore()
      for (const modem of modems) await modem.stop()
    }
  }).timeout(180_000)

  test('a configuration file with a mistake: one line naming it, and a non-zero exit', async ({ assert }) => {
    const cases: Array<[unknown, string[], RegExp]> = [
      [{ modems: [] }, [], /"modems" must be a list of at least one modem/],
      [{ modems: [{ device: '/dev/ttyUSB2' }] }, [], /modem 1: "state" must be a non-empty string/],
      [{ modems: [{ device: '/dev/ttyUSB2', state: 'a.json', pin: '12' }] }, [], /modem 1: "pin" must be 4 to 8 digits/],
      [{ modems: [{ device: '/dev/ttyUSB2', state: 'a.json' }, { device: '/dev/ttyUSB2', state: 'b.json' }] }, [], /two modems have the same "device"/],
      [{ modems: [{ device: '/dev/ttyUSB2', state: 'a.json', speed: 9600 }] }, [], /unknown field "speed"/],
      [{ modems: [{ device: '/dev/ttyUSB2', state: 'a.json' }] }, ['--pair', 'ANYCODE1'], /--config takes each modem's settings from the file, not --pair/],
    ]
    const results = await Promise.all(
      cases.map(([content, extra], index) => {
        const file = join(folder, `config-${index}.json`)
        writeFileSync(file, JSON.stringify(content))
        return agentProcess(['--config', file, ...extra]).exited
      })
    )
    for (const [index, { status, lines }] of results.entries()) {
      assert.equal(status, 1, lines.join('\n'))
      assert.lengthOf(lines, 1, lines.join('\n'))
      assert.match(lines[0], cases[index][2])
    }
  }).timeout(90_000)
})

test.group('The agent\'s --list (fake modems on pseudo-terminals)', () => {
  test('finds each port once and says what it is: ATI, AT+CGMM, AT+CIMI masked; a silent port or a plain file does not hang it', async ({ assert }) => {
    const folder = mkdtempSync(join(tmpdir(), 'modem-list-'))
    const modems = [
      await FakeModem.start({ identity: { model: 'SIM7600E-H', imsi: '208150123456789' } }),
      await FakeModem.start({ pin: '4821', identity: { manufacturer: 'QUECTEL', model: 'EC25' } }),
      await FakeModem.start(),
    ]
    // The third is some other serial device: it reads and never answers.
    modems[2].silent = true
    try {
      await modems[0].serialDevice(join(folder, 'usb-SimTech_SIM7600E-if02-port0'))
      await modems[1].serialDevice(join(folder, 'usb-Quectel_EC25-if02-port0'))
      await modems[2].serialDevice(join(folder, 'usb-Prolific_USB-Serial-port0'))
      // Another link to the first modem's device (its ttyUSB name beside its by-id one): listed once.
      const { readlinkSync, symlinkSync } = await import('node:fs')
      symlinkSync(readlinkSync(join(folder, 'usb-SimTech_SIM7600E-if02-port0')), join(folder, 'ttyUSB2'))
      writeFileSync(join(folder, 'notes.txt'), 'not a device')

      const started = Date.now()
      const { status, lines } = await agentProcess(['--list', '--scan', folder, '--baud', '115200']).exited
      assert.equal(status, 0, lines.join('\n'))
      assert.isBelow(Date.now() - started, 30_000)
      const output = lines.join('\n')
      const block = (name: string) => lines.slice(lines.findIndex((line) => line.startsWith(join(folder, name))), undefined)
      assert.match(block('usb-SimTech_SIM7600E-if02-port0')[0], /\(\/dev\/pts\/\d+\): a modem$/, output)
      assert.deepEqual(block('usb-SimTech_SIM7600E-if02-port0').slice(1, 4), [
        '  ATI:      Manufacturer: FAKE MODEMS LTD, Model: SIM7600E-H, Revision: FM7600E_V1.2, IMEI: 35693803*******',
        '  AT+CGMM:  SIM7600E-H',
        '  AT+CIMI:  20815**********',
      ])
      assert.deepEqual(block('usb-Quectel_EC25-if02-port0').slice(2, 4), ['  AT+CGMM:  EC25', '  AT+CIMI:  +CME ERROR: 11 (the SIM asks for its PIN)'])
      assert.match(block('usb-Prolific_USB-Serial-port0')[0], /: no answer to AT within 2 s/)
      assert.match(block('notes.txt')[0], /: cannot open it \(/)
      assert.isFalse(lines.some((line) => line.startsWith(join(folder, 'ttyUSB2'))), output)
      // No subscriber or device identity in full.
      assert.notInclude(output, '208150123456789')
      assert.notInclude(output, '356938035643809')
      // The modems were asked only what identifies them.
      assert.deepEqual(modems[0].commands, ['AT', 'ATE0', 'AT+CMEE=1', 'ATI', 'AT+CGMM', 'AT+CIMI'])
    } finally {
      for (const modem of modems) await modem.stop()
      rmSync(folder, { recursive: true, force: true })
    }
  }).timeout(60_000)
})

test.group('A modem away: its phone offline at the gateway until it is back (the documented command)', (group) => {
  let folder: string
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearDevices()
    await clearMessaging()
    folder = mkdtempSync(join(tmpdir(), 'modem-away-'))
    return () => rmSync(folder, { recursive: true, force: true })
  })

  test('unplugged: the phone goes offline and takes no order; the one in flight is OUTCOME_UNKNOWN; plugged back, it connects and sends what waited, once', async ({ client, assert }) => {
    const modem = await FakeModem.start()
    const manual = useManualClock(new Date())
    const jobs = await useDeviceJobs(manual.clock)
    const until = (condition: () => boolean | Promise<boolean>) =>
      eventually(async () => {
        await settle(manual.clock, jobs.runner, jobs.hub, [])
        return condition()
      }, 60_000)
    const message = async (id: string) => db.from('messages').where('id', id).select('status', 'attempts', 'error_code').first()
    let agent: ReturnType<typeof agentProcess> | null = null
    try {
      const link = join(folder, 'usb-Fake_Modem-if02-port0')
      await modem.serialDevice(link)
      const args = ['--gateway', process.env.GATEWAY_PUBLIC_URL!, '--pair', await pairingCode(client), '--driver', 'modem', '--device', link, '--baud', '115200']
      agent = agentProcess([...args, '--state', join(folder, 'modem.json')])
      await eventually(() => agent!.printed(/connected/), 60_000)
      // The agent prints it on the gateway's welcome, which goes out just before the gateway
      // stores the phone online: on a loaded machine the list may still say offline.
      await eventually(async () => (await devices(client))[0].status === 'online', 10_000)

      // The first order's PDU is written and never answered, then the modem goes.
      modem.onSubmit = () => 'silent'
      const inFlight = (await sendAs(client, { to: '+33612345678', body: 'In flight' })).body().accepted[0].id
      await until(() => modem.submitted.length === 1)
      const mark = agent.output.length
      modem.unplug()
      await eventually(() => agent!.printed(/the modem is not ready: offline at the gateway/, mark), 30_000)
      await until(async () => (await devices(client))[0].status === 'offline')

      // Meanwhile an order waits at the gateway: no phone takes it, no attempt is spent.
      const waiting = (await sendAs(client, { to: '+33612345678', body: 'Sent once back' })).body().accepted[0].id
      await settle(manual.clock, jobs.runner, jobs.hub, [])
      assert.deepInclude(await message(waiting), { status: 'queued', attempts: 0 })
      assert.isFalse(agent.printed(/connected/, mark), agent.output.slice(mark))

      modem.onSubmit = () => 'ok'
      modem.plugIn()
      await modem.serialDevice(link)
      await eventually(() => agent!.printed(/the modem is ready again: connecting/, mark) && agent!.printed(/connected/, mark), 60_000)
      await until(async () => (await message(waiting)).status === 'sent' && (await message(inFlight)).status === 'failed')
      assert.deepInclude(await message(inFlight), { error_code: 'OUTCOME_UNKNOWN' })
      assert.deepInclude(await message(waiting), { attempts: 1 })
      assert.deepEqual(
        modem.submitted.map((part) => part.submit.userData.text),
        ['In flight', 'Sent once back']
      )
      assert.deepEqual((await devices(client)).map((device) => device.status), ['online'])
      const { status, lines } = await agent.stop()
      assert.equal(status, 0, lines.join('\n'))
    } finally {
      await agent?.stop()
      await jobs.stop()
      manual.restore()
      await modem.stop()
    }
  }).timeout(180_000)
})

test.group('Whole texts and scripted faults through the gateway (the documented command, a simulated modem on a pseudo-terminal)', (group) => {
  let folder: string
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearDevices()
    await clearMessaging()
    folder = mkdtempSync(join(tmpdir(), 'modem-texts-'))
    return () => rmSync(folder, { recursive: true, force: true })
  })

  test('single, long GSM 7-bit, long UCS-2, emoji: PDUs read by node-pdu, delivered by reports; +CMS ERROR 38 retried and sent once, 500 failed with its code; a long SMS in parts out of order stored whole', async ({ client, assert }) => {
    const modem = await FakeModem.start()
    const manual = useManualClock(new Date())
    const jobs = await useDeviceJobs(manual.clock)
    const until = (condition: () => boolean | Promise<boolean>) =>
      eventually(async () => {
        await settle(manual.clock, jobs.runner, jobs.hub, [])
        return condition()
      }, 60_000)
    const message = async (id: string) => db.from('messages').where('id', id).select('status', 'attempts', 'error_code').first()
    let agent: ReturnType<typeof agentProcess> | null = null
    try {
      const link = join(folder, 'usb-Fake_Modem-if02-port0')
      await modem.serialDevice(link)
      agent = agentProcess(['--gateway', process.env.GATEWAY_PUBLIC_URL!, '--pair', await pairingCode(client), '--driver', 'modem', '--device', link, '--state', join(folder, 'modem.json')])
      await eventually(() => agent!.printed(/connected/), 60_000)

      const ids: string[] = []
      for (const [, text] of WHOLE_TEXTS) ids.push((await sendAs(client, { to: '+33612345678', body: text })).body().accepted[0].id)
      await until(async () => (await db.from('messages').whereIn('id', ids).where('status', 'sent').count('* as n').first()).n === ids.length)
      // The texts the modem got, read by node-pdu: parts joined by their concatenation reference.
      const read = modem.submitted.map((part) => oracleSubmit(part.pdu))
      const texts = new Map<string, string>()
      for (const [index, part] of read.entries()) {
        const key = part.concatenation ? `ref ${part.concatenation.reference}` : `single ${index}`
        texts.set(key, (texts.get(key) ?? '') + part.text)
      }
      assert.sameMembers([...texts.values()], WHOLE_TEXTS.map(([, text]) => text))
      assert.lengthOf(modem.submitted, 1 + 2 + 3 + 4, 'no part twice')
      for (const part of modem.submitted) modem.report({ messageReference: part.mr, status: 0 })
      await until(async () => (await db.from('messages').whereIn('id', ids).where('status', 'delivered').count('* as n').first()).n === ids.length)

      let busy = 0
      modem.onSubmit = ({ submit }) => (submit.userData.text === 'Busy network' && busy++ === 0 ? '+CMS ERROR: 38' : submit.userData.text === 'Refused' ? '+CMS ERROR: 500' : 'ok')
      const retried = (await sendAs(client, { to: '+33612345678', body: 'Busy network' })).body().accepted[0].id
      await until(async () => (await message(retried)).error_code === 'NETWORK_BUSY')
      assert.deepInclude(await message(retried), { status: 'queued', attempts: 1 })
      await manual.clock.advance(30_000)
      await until(async () => (await message(retried)).status === 'sent')
      assert.deepInclude(await message(retried), { attempts: 2 })
      assert.lengthOf(modem.submitted.filter((part) => part.mr !== -1 && part.submit.userData.text === 'Busy network'), 1)

      const refused = (await sendAs(client, { to: '+33612345678', body: 'Refused' })).body().accepted[0].id
      for (const wait of [30_000, 120_000, 600_000]) {
        const attempts = (await message(refused)).attempts
        await until(async () => (await message(refused)).attempts > attempts || (await message(refused)).status === 'failed')
        await manual.clock.advance(wait)
      }
      await until(async () => (await message(refused)).status === 'failed')
      assert.deepInclude(await message(refused), { error_code: 'CMS_ERROR_500', attempts: 4 })
      assert.lengthOf(modem.submitted.filter((part) => part.submit.userData.text === 'Refused'), 4)
      assert.isFalse(modem.submitted.some((part) => part.mr !== -1 && part.submit.userData.text === 'Refused'))

      const inbound = 'Входящее [long] SMS, parts out of order ✓ '.repeat(5)
      const parts = new Deliver('+447911123456', inbound, { serviceCenterTimeStamp: new utils.SCTS(new Date('2026-05-04T09:30:00Z'), 0) }).getPartStrings()
      assert.isAbove(parts.length, 2)
      for (const at of [parts.length - 1, 0, 0, ...parts.keys()].filter((each, position) => position < 3 || (each > 0 && each < parts.length - 1))) modem.deliverPdu(parts[at])
      await until(async () => (await db.from('messages').where('direction', 'in').count('* as n').first()).n === 1)
      assert.equal((await db.from('messages').where('direction', 'in').select('body').first()).body, inbound)
      await eventually(() => modem.stores.get('SM')!.size === 0, 30_000)
      assert.isFalse(agent.printed(/33612345678|447911123456|Busy network|Входящее/), agent.output)
      const { status, lines } = await agent.stop()
      assert.equal(status, 0, lines.join('\n'))
    } finally {
      await agent?.stop()
      await jobs.stop()
      manual.restore()
      await modem.stop()
    }
  }).timeout(240_000)
})
