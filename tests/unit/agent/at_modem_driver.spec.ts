import { test } from '@japa/runner'
import { ManualClock } from '#core/time/clock'
import { AtModemDriver, ModemStartError, signalBars, type ModemOptions } from '../../../agent/src/drivers/at_modem.js'
import type { InboundSms } from '../../../agent/src/sms_driver.js'
import { encodeDeliver, encodeSubmit } from '../../../agent/src/modem/pdu/index.js'
import { FakeModem, type FakeModemOptions } from '#tests/helpers/fake_modem'

const SETUP = ['ATE0', 'AT+CMEE=1', 'AT+CPIN?', 'AT+CMGF=0', 'AT+CSMS?', 'AT+CREG?', 'AT+CEREG?', 'AT+CNMI=2,1,0,1,0', 'AT+CPMS="SM","SM","SM"', 'AT+COPS=3,0', 'AT+COPS?']

/** Lets the socket and the promises behind it run (the fake modem answers over a real stream). */
const turn = () => new Promise((resolve) => setTimeout(resolve, 20))

async function until(predicate: () => boolean) {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 5))
}

/** The manual clock, noting each wait armed: a test moves time once the driver waits. */
class WatchedClock extends ManualClock {
  armed: number[] = []
  setTimer(delayMs: number, callback: () => void) {
    this.armed.push(delayMs)
    return super.setTimer(delayMs, callback)
  }
  /** Resolves once `count` waits of `delayMs` were armed. */
  async armedTimes(delayMs: number, count: number) {
    await until(() => this.armed.filter((each) => each === delayMs).length >= count)
  }
}

test.group('AT modem driver: set-up', (group) => {
  const started: Array<{ modem: FakeModem; driver: AtModemDriver }> = []
  group.each.teardown(async () => {
    for (const { modem, driver } of started.splice(0)) {
      driver.stop()
      await modem.stop()
    }
  })
  async function setUp(options: FakeModemOptions = {}, driverOptions: Partial<ModemOptions> = {}) {
    const modem = await FakeModem.start(options)
    const clock = new WatchedClock()
    const driver = new AtModemDriver({ path: 'unused', open: () => modem.connect(), clock, ...driverOptions })
    started.push({ modem, driver })
    return { modem, driver, clock }
  }

  test('sets a modem that starts with echo on into PDU mode, step by step, then lists what the SIM holds', async ({ assert }) => {
    const { modem, driver } = await setUp()
    await driver.start()
    await modem.until(() => modem.commands.includes('AT+CMGL=4'))
    assert.deepEqual(modem.commands, [...SETUP, 'AT+CMGL=4'])
    assert.isFalse(modem.echo)
    assert.isTrue(modem.pduMode)
    assert.deepEqual(driver.sims(), [{ slot: 0, label: 'Modem', operator: 'Orange F' }])
  })

  test('enters the SIM PIN when the SIM asks for it; without one, or with a wrong one, a clear error that never shows it', async ({ assert }) => {
    const { modem, driver } = await setUp({ pin: '4821' }, { pin: '4821' })
    await driver.start()
    assert.isTrue(modem.pinEntered)
    assert.deepEqual(modem.commands.slice(2, 6), ['AT+CPIN?', 'AT+CPIN="4821"', 'AT+CPIN?', 'AT+CMGF=0'])

    const missing = await setUp({ pin: '4821' })
    const noPin = await missing.driver.start().catch((error) => error)
    assert.instanceOf(noPin, ModemStartError)
    assert.match(noPin.message, /AT\+CPIN\? \(SIM state\): the SIM asks for its PIN: give it with --pin or MODEM_PIN/)

    const wrong = await setUp({ pin: '4821' }, { pin: '1111' })
    const wrongPin = await wrong.driver.start().catch((error) => error)
    assert.equal(wrongPin.message, 'modem setup, AT+CPIN (SIM PIN): +CME ERROR: 16')
    assert.notInclude(wrongPin.message, '1111')
  })

  test('waits while the modem searches for a network, and gives up with the step named after the bound', async ({ assert }) => {
    const { modem, driver, clock } = await setUp({ registration: [2, 2, 5] })
    let done = false
    const starting = driver.start().then(() => (done = true))
    await clock.armedTimes(2000, 1)
    assert.isFalse(done)
    await clock.advance(2000)
    await clock.armedTimes(2000, 2)
    assert.isFalse(done)
    await clock.advance(2000)
    await starting
    assert.lengthOf(modem.sentCommands('AT+CREG?'), 3)

    const lost = await setUp({ registration: [2] })
    const failing = lost.driver.start().catch((error) => error)
    for (let waits = 1; waits <= 30; waits++) {
      await lost.clock.armedTimes(2000, waits)
      await lost.clock.advance(2000)
    }
    const error = await failing
    assert.equal(error.message, 'modem setup, AT+CREG? (network registration): not registered after 60 s (state 2/4)')
    assert.lengthOf(lost.modem.sentCommands('AT+CREG?'), 31)

    const denied = await setUp({ registration: [3], lte: false })
    assert.equal((await denied.driver.start().catch((failure) => failure)).message, 'modem setup, AT+CREG? (network registration): registration denied by the network')
  })

  test('falls back to stored status reports (+CDSI) when the modem cannot route them, and names the step a modem refuses', async ({ assert }) => {
    const { modem, driver } = await setUp({ refusedCnmi: ['2,1,0,1,0'], stores: ['ME', 'SR'] })
    await driver.start()
    assert.includeMembers(modem.commands, ['AT+CNMI=2,1,0,1,0', 'AT+CNMI=2,1,0,2,0', 'AT+CPMS="SM","SM","SM"', 'AT+CPMS="ME","ME","ME"'])
    assert.equal(modem.readStore, 'ME')

    const refusing = await setUp({ pduModeError: '+CMS ERROR: 303' })
    assert.equal((await refusing.driver.start().catch((error) => error)).message, 'modem setup, AT+CMGF (PDU mode): +CMS ERROR: 303')
  })

  test('a modem that never answers fails the start at the first step, once the bound is past', async ({ assert }) => {
    const { modem, driver, clock } = await setUp()
    modem.silent = true
    const failing = driver.start().catch((error) => error)
    await modem.until(() => modem.commands.length === 1)
    await clock.advance(10_000)
    assert.equal((await failing).message, 'modem setup, ATE0 (echo off): no answer')
  })
})

test.group('AT modem driver: sending and delivery reports', (group) => {
  let modem: FakeModem
  let driver: AtModemDriver
  let clock: ManualClock
  let references: number
  const delivered: string[] = []
  const undelivered: Array<[string, string]> = []
  group.each.setup(async () => {
    modem = await FakeModem.start()
    clock = new ManualClock()
    references = 40
    delivered.length = 0
    undelivered.length = 0
    driver = new AtModemDriver({ path: 'unused', open: () => modem.connect(), clock, nextReference: () => ++references })
    driver.onDelivered((messageId) => delivered.push(messageId))
    driver.onDeliveryFailed((messageId, reason) => undelivered.push([messageId, reason]))
    await driver.start()
    return async () => {
      driver.stop()
      await modem.stop()
    }
  })

  test('sends an SMS-SUBMIT after the prompt, its length as AT+CMGS gave it; its status report marks it delivered', async ({ assert }) => {
    assert.deepEqual(await driver.send({ messageId: '41', to: '+33612345678', text: 'Your code is 1234', simSlot: 0 }), { ok: true })
    const [part] = modem.submitted
    assert.equal(part.declaredLength, part.pdu.length / 2 - 1)
    assert.deepInclude(part.submit.to, { value: '+33612345678', kind: 'international' })
    assert.equal(part.submit.userData.text, 'Your code is 1234')
    assert.isTrue(part.submit.statusReport)
    assert.include(modem.sentCommands('AT+CMGS='), `AT+CMGS=${part.declaredLength}`)

    modem.report({ messageReference: part.mr + 1, status: 0 })
    modem.report({ messageReference: part.mr, status: 0, recipient: '+447911123456' })
    await turn()
    assert.deepEqual(delivered, [], 'another reference, or another recipient, is no report about it')
    modem.report({ messageReference: part.mr, status: 0x20 })
    await turn()
    assert.deepEqual(delivered, [], 'pending is not final')
    // The service centre may write the recipient nationally.
    modem.report({ messageReference: part.mr, status: 0, recipient: '0612345678' })
    await until(() => delivered.length > 0)
    assert.deepEqual(delivered, ['41'])
  })

  test('a long SMS goes in parts under one reference from the counter, and is delivered once every part was', async ({ assert }) => {
    const text = 'Ünïcödé text that needs UCS-2 and more than seventy characters, so two parts ✓'
    assert.deepEqual(await driver.send({ messageId: '50', to: '+33612345678', text, simSlot: 0 }), { ok: true })
    assert.lengthOf(modem.submitted, 2)
    assert.deepEqual(
      modem.submitted.map((part) => part.submit.userData.header?.concatenation),
      [1, 2].map((sequence) => ({ reference: 41, referenceBits: 8, total: 2, sequence }))
    )
    assert.equal(modem.submitted.map((part) => part.submit.userData.text).join(''), text)
    // A one-part SMS takes no reference.
    await driver.send({ messageId: '51', to: '+33612345678', text: 'short', simSlot: 0 })
    assert.equal(references, 41)

    const [first, second] = modem.submitted
    modem.report({ messageReference: second.mr, status: 0 }, 'cdsi')
    await until(() => modem.sentCommands('AT+CMGD=').length === 1)
    assert.deepEqual(delivered, [])
    assert.includeMembers(modem.commands, ['AT+CPMS="SR"', 'AT+CMGR=1', 'AT+CMGD=1'])
    assert.equal(modem.stores.get('SR')!.size, 0)
    modem.report({ messageReference: first.mr, status: 0 })
    await until(() => delivered.length > 0)
    assert.deepEqual(delivered, ['50'])
  })

  test('a part that failed for good fails the message with the report meaning', async ({ assert }) => {
    await driver.send({ messageId: '60', to: '+33612345678', text: 'x'.repeat(200), simSlot: 0 })
    modem.report({ messageReference: modem.submitted[0].mr, status: 0 })
    modem.report({ messageReference: modem.submitted[1].mr, status: 0x42 })
    await until(() => undelivered.length > 0)
    assert.deepEqual(undelivered, [['60', 'REJECTED_BY_RECIPIENT']])
    assert.deepEqual(delivered, [])
  })

  test('modem errors become the gateway failure reasons: temporary ones retryable codes, others the modem number', async ({ assert }) => {
    const errors: Record<number, string> = { 0: '+CMS ERROR: 331', 1: '+CMS ERROR: 42', 2: '+CMS ERROR: 500', 3: '+CME ERROR: 30', 4: 'ERROR' }
    modem.onSubmit = ({ index }) => errors[index] ?? 'ok'
    const reasons = []
    for (let index = 0; index < 6; index++) {
      const outcome = await driver.send({ messageId: `7${index}`, to: '+33612345678', text: 'hello', simSlot: 0 })
      reasons.push(outcome.ok ? 'ok' : outcome.reason)
    }
    assert.deepEqual(reasons, ['NO_SIGNAL', 'NETWORK_BUSY', 'CMS_ERROR_500', 'NO_SIGNAL', 'MODEM_ERROR', 'ok'])
    assert.deepEqual(await driver.send({ messageId: '77', to: 'not a number', text: 'hello', simSlot: 0 }), { ok: false, reason: 'INVALID_RECIPIENT' })
  })

  test('a modem silent after the PDU: OUTCOME_UNKNOWN once 60 s passed, never sent again', async ({ assert }) => {
    modem.onSubmit = () => 'silent'
    let outcome: unknown = null
    const sending = driver.send({ messageId: '80', to: '+33612345678', text: 'hello', simSlot: 0 }).then((result) => (outcome = result))
    await modem.until(() => modem.submitted.length === 1)
    await clock.advance(59_000)
    assert.isNull(outcome)
    await clock.advance(1000)
    await sending
    assert.deepEqual(outcome, { ok: false, reason: 'OUTCOME_UNKNOWN' })
    assert.lengthOf(modem.submitted, 1)
  })

  test('no prompt within 10 s: nothing was written, the prompt is ended with ESC, a retryable failure', async ({ assert }) => {
    modem.noPrompt = true
    const sending = driver.send({ messageId: '81', to: '+33612345678', text: 'hello', simSlot: 0 })
    await modem.until(() => modem.sentCommands('AT+CMGS=').length === 1)
    await clock.advance(10_000)
    assert.deepEqual(await sending, { ok: false, reason: 'MODEM_NOT_ANSWERING' })
    await modem.until(() => modem.received.join('').includes('\x1b'))
    assert.lengthOf(modem.submitted, 0)
  })

  test('a later part refused after the first left: OUTCOME_UNKNOWN (sending again would repeat the first)', async ({ assert }) => {
    modem.onSubmit = ({ index }) => (index === 1 ? '+CMS ERROR: 42' : 'ok')
    assert.deepEqual(await driver.send({ messageId: '82', to: '+33612345678', text: 'y'.repeat(300), simSlot: 0 }), { ok: false, reason: 'OUTCOME_UNKNOWN' })
  })

  test('one SMS at a time: the parts of two orders given together do not interleave', async ({ assert }) => {
    const outcomes = await Promise.all([
      driver.send({ messageId: '90', to: '+33612345678', text: 'a'.repeat(300), simSlot: 0 }),
      driver.send({ messageId: '91', to: '+33699999999', text: 'b'.repeat(300), simSlot: 0 }),
    ])
    assert.deepEqual(outcomes, [{ ok: true }, { ok: true }])
    assert.deepEqual(
      modem.submitted.map((part) => part.submit.userData.text[0]),
      ['a', 'a', 'b', 'b']
    )
  })

  test('signal from AT+CSQ as bars (99: unknown, left out)', async ({ assert }) => {
    assert.deepEqual(await driver.status(), { signal: 4 })
    assert.deepEqual([0, 2, 3, 5, 8, 12, 31, 99].map(signalBars), [0, 0, 1, 2, 3, 4, 4, null])
  })
})

test.group('AT modem driver: receiving', (group) => {
  let modem: FakeModem
  let driver: AtModemDriver
  let clock: ManualClock
  let received: InboundSms[]
  /** Each SMS handed over is acknowledged when the test says so. */
  let acknowledge: Array<() => void>
  group.each.setup(() => {
    received = []
    acknowledge = []
    clock = new ManualClock()
    return async () => {
      driver.stop()
      await modem.stop()
    }
  })
  async function start(options: FakeModemOptions = {}, before?: (modem: FakeModem) => void) {
    modem = await FakeModem.start(options)
    before?.(modem)
    driver = new AtModemDriver({ path: 'unused', open: () => modem.connect(), clock })
    await driver.start()
    driver.onInbound((sms) => {
      received.push(sms)
      return new Promise<void>((resolve) => acknowledge.push(resolve))
    })
  }

  test('+CMTI: read with AT+CMGR, handed over, deleted only once acknowledged', async ({ assert }) => {
    await start()
    const index = modem.deliver({ from: '+447911123456', text: 'Hello modem', offsetMinutes: 120 })
    await until(() => received.length === 1)
    assert.deepEqual(received[0], { ref: received[0].ref, from: '+447911123456', body: 'Hello modem', receivedAt: '2026-05-04T09:30:00.000Z', simSlot: 0 })
    assert.match(received[0].ref, /^modem-[0-9a-f]{24}$/)
    await turn()
    assert.deepEqual(modem.sentCommands('AT+CMGD='), [])
    acknowledge[0]()
    await modem.until(() => modem.sentCommands('AT+CMGD=').length === 1)
    assert.deepEqual(modem.sentCommands('AT+CMGD='), [`AT+CMGD=${index}`])
    assert.equal(modem.stores.get('SM')!.size, 0)
  })

  test('a long SMS: parts in any order, a repeat ignored, one SMS handed over, every copy deleted', async ({ assert }) => {
    await start()
    const part = (sequence: number, text: string) => ({ from: '+447911123456', text, concatenation: { reference: 7, referenceBits: 8 as const, total: 3, sequence } })
    modem.deliver(part(3, 'three'))
    modem.deliver(part(1, 'one '))
    modem.deliver(part(1, 'one '))
    await modem.until(() => modem.sentCommands('AT+CMGR=').length === 3)
    await turn()
    assert.lengthOf(received, 0)
    modem.deliver(part(2, 'two '))
    await until(() => received.length === 1)
    assert.equal(received[0].body, 'one two three')
    acknowledge[0]()
    await modem.until(() => modem.sentCommands('AT+CMGD=').length === 4)
    assert.equal(modem.stores.get('SM')!.size, 0)
    await turn()
    assert.lengthOf(received, 1)
  })

  test('parts still missing after 10 minutes: what came is handed over, the gaps marked', async ({ assert }) => {
    await start()
    modem.deliver({ from: '+447911123456', text: 'first ', concatenation: { reference: 9, referenceBits: 8, total: 3, sequence: 1 } })
    await modem.until(() => modem.sentCommands('AT+CMGR=').length === 1)
    await turn()
    await clock.advance(9 * 60_000)
    assert.lengthOf(received, 0)
    await clock.advance(60_000)
    await until(() => received.length === 1)
    assert.equal(received[0].body, 'first [part 2/3 missing][part 3/3 missing]')
    acknowledge[0]()
    await modem.until(() => modem.sentCommands('AT+CMGD=').length === 1)
  })

  test('+CMT: the PDU in the notice, acknowledged with AT+CNMA when the modem needs it', async ({ assert }) => {
    await start({ smsService: 1 })
    modem.deliver({ from: 'MyBank', text: 'Flash' }, 'cmt')
    await until(() => received.length === 1)
    assert.deepInclude(received[0], { from: 'MyBank', body: 'Flash' })
    await modem.until(() => modem.commands.includes('AT+CNMA'))
  })

  test('at start, what the SIM holds is handed over once the agent listens, then deleted; a stored outgoing SMS is left alone', async ({ assert }) => {
    let first = 0
    await start({}, (fake) => {
      first = fake.store('SM', encodeDeliver({ from: '+33611111111', text: 'kept while off', sentAt: new Date('2026-05-03T08:00:00Z') }), 1)
      fake.store('SM', encodeSubmit('+33611111111', 'draft', { reference: 0 }).parts[0].pdu, 3)
    })
    await until(() => received.length === 1)
    assert.deepInclude(received[0], { from: '+33611111111', body: 'kept while off' })
    acknowledge[0]()
    await modem.until(() => modem.sentCommands('AT+CMGD=').length === 1)
    assert.deepEqual(modem.sentCommands('AT+CMGD='), [`AT+CMGD=${first}`])
    assert.equal(modem.stores.get('SM')!.size, 1)
  })

  test('the same SMS read again (a restart before the gateway acknowledged it) keeps its ref', async ({ assert }) => {
    await start()
    modem.deliver({ from: '+447911123456', text: 'twice' })
    modem.deliver({ from: '+447911123456', text: 'twice' })
    modem.deliver({ from: '+447911123456', text: 'twice', sentAt: new Date('2026-05-04T09:31:00Z') })
    await until(() => received.length === 3)
    assert.equal(received[0].ref, received[1].ref)
    assert.notEqual(received[0].ref, received[2].ref)
  })
})
