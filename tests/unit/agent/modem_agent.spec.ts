import { test } from '@japa/runner'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runPhone } from '../../../agent/src/run_phone.js'
import { ManualClock } from '#core/time/clock'
import { PhoneAgent } from '../../../agent/src/phone_agent.js'
import { AtModemDriver } from '../../../agent/src/drivers/at_modem.js'
import { FakeModem } from '#tests/helpers/fake_modem'
import { CREDENTIAL, eventually, fakeGateway } from './fake_gateway.js'

test.group('Phone agent with the modem driver (fake gateway, fake modem)', (group) => {
  let modem: FakeModem
  let driver: AtModemDriver
  let gateway: Awaited<ReturnType<typeof fakeGateway>>
  let agent: PhoneAgent
  let ackInbound: boolean
  group.each.setup(async () => {
    ackInbound = true
    modem = await FakeModem.start()
    driver = new AtModemDriver({ path: 'unused', open: () => modem.connect(), clock: new ManualClock() })
    await driver.start()
    gateway = await fakeGateway({ acks: (type) => type !== 'inbound' || ackInbound })
    agent = new PhoneAgent({ gatewayUrl: gateway.url, credential: CREDENTIAL, driver })
    await agent.connect()
    return async () => {
      await agent.disconnect()
      await gateway.stop()
      driver.stop()
      await modem.stop()
    }
  })
  const framesOf = (type: string, messageId?: string) => gateway.frames.filter((frame) => frame.type === type && (messageId === undefined || frame.messageId === messageId))

  test('an order goes out as a PDU; the status reports come back as the delivered and failed frames', async ({ assert }) => {
    gateway.order('301')
    await eventually(() => framesOf('sent', '301').length === 1)
    gateway.order('302', '+33699999999', 'Another')
    await eventually(() => framesOf('sent', '302').length === 1)
    assert.deepEqual(
      modem.submitted.map((part) => part.submit.userData.text),
      ['Your code is 1234', 'Another']
    )
    modem.report({ messageReference: modem.submitted[0].mr, status: 0 })
    modem.report({ messageReference: modem.submitted[1].mr, status: 0x46, recipient: '+33699999999' })
    await eventually(() => framesOf('delivered').length === 1 && framesOf('failed').length === 1)
    assert.equal(framesOf('delivered')[0].messageId, '301')
    assert.deepInclude(framesOf('failed')[0], { messageId: '302', reason: 'VALIDITY_PERIOD_EXPIRED' })
  })

  test('a received SMS leaves the SIM only once the gateway acknowledged its inbound frame', async ({ assert }) => {
    ackInbound = false
    modem.deliver({ from: '+447911123456', text: 'Hello gateway' })
    await eventually(() => framesOf('inbound').length === 1)
    assert.deepInclude(framesOf('inbound')[0], { from: '+447911123456', body: 'Hello gateway', simSlot: 0 })
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.deepEqual(modem.sentCommands('AT+CMGD='), [])
    // The gateway stores it after a reconnection: the agent sends the frame again, it is acked.
    ackInbound = true
    await agent.disconnect()
    await agent.connect()
    await eventually(() => modem.sentCommands('AT+CMGD=').length === 1)
    assert.equal(modem.stores.get('SM')!.size, 0)
    assert.equal(framesOf('inbound')[1].ref, framesOf('inbound')[0].ref)
  })
})

test.group('Phone agent with the modem driver: the state file', () => {
  test('the concatenation reference of long SMS is kept in --state: after a restart the next one takes another', async ({ assert }) => {
    const folder = mkdtempSync(join(tmpdir(), 'modem-state-'))
    const stateFile = join(folder, 'modem.json')
    const gateway = await fakeGateway()
    const modem = await FakeModem.start()
    const long = 'z'.repeat(200)
    const referenceOf = (index: number) => modem.submitted[index].submit.userData.header!.concatenation!.reference
    try {
      for (const [run, messageId] of [[0, '401'], [1, '402']] as const) {
        const phone = await runPhone({ gateway: gateway.url, credential: CREDENTIAL, driver: 'modem', modemPath: await modem.serialDevice(), stateFile }, () => {})
        await eventually(() => phone.agent.connected)
        gateway.order(messageId, '+33612345678', long)
        await eventually(() => modem.submitted.length === 2 * (run + 1))
        await phone.agent.idle()
        await phone.stop()
      }
      assert.equal(referenceOf(0), referenceOf(1))
      assert.equal(referenceOf(2), (referenceOf(0) + 1) & 0xff)
      assert.equal(JSON.parse(readFileSync(stateFile, 'utf8')).concatenationReference, referenceOf(2))
    } finally {
      await gateway.stop()
      await modem.stop()
      rmSync(folder, { recursive: true, force: true })
    }
  }).timeout(20_000)
})

test.group('Phone agent with the modem driver: status reports across a restart', () => {
  test('the parts waiting for reports are kept in --state: a long SMS half reported before a restart is delivered by the report after it', async ({ assert }) => {
    const folder = mkdtempSync(join(tmpdir(), 'modem-reports-'))
    const stateFile = join(folder, 'modem.json')
    const gateway = await fakeGateway()
    const modem = await FakeModem.start()
    const start = async () => {
      const phone = await runPhone({ gateway: gateway.url, credential: CREDENTIAL, driver: 'modem', modemPath: await modem.serialDevice(), stateFile }, () => {})
      await eventually(() => phone.agent.connected)
      return phone
    }
    const delivered = () => gateway.frames.filter((frame) => frame.type === 'delivered').map((frame) => frame.messageId)
    try {
      let phone = await start()
      gateway.order('501', '+33612345678', 'y'.repeat(200))
      gateway.order('502', '+33699999999', 'Short one')
      await eventually(() => gateway.frames.filter((frame) => frame.type === 'sent').length === 2)
      await phone.agent.idle()
      const [first, second, short] = modem.submitted.map((part) => part.mr)
      modem.report({ messageReference: first, status: 0 })
      await eventually(() => JSON.parse(readFileSync(stateFile, 'utf8')).deliveries?.[0]?.[2]?.length === 1)
      await phone.stop()
      const kept = readFileSync(stateFile, 'utf8')
      // What a report is matched by, and no more: no full number, no text.
      assert.deepEqual(
        JSON.parse(kept).deliveries.map(([messageId, references, done, recipient]: any[]) => [messageId, references, done, recipient]),
        [
          ['501', [first, second], [first], '612345678'],
          ['502', [short], [], '699999999'],
        ]
      )
      assert.notInclude(kept, '33612345678')
      assert.notInclude(kept, 'yyyy')
      assert.deepEqual(delivered(), [])

      phone = await start()
      // A report naming another number with the same reference is not this message's.
      modem.report({ messageReference: short, status: 0, recipient: '+33600000000' })
      modem.report({ messageReference: second, status: 0 })
      modem.report({ messageReference: short, status: 0, recipient: '0699999999' })
      await eventually(() => delivered().length === 2)
      assert.sameMembers(delivered(), ['501', '502'])
      await phone.agent.idle()
      await phone.stop()
      assert.notProperty(JSON.parse(readFileSync(stateFile, 'utf8')), 'deliveries', 'both done: nothing waits')
    } finally {
      await gateway.stop()
      await modem.stop()
      rmSync(folder, { recursive: true, force: true })
    }
  }).timeout(30_000)
})
