import { test } from '@japa/runner'
import { ManualClock } from '#core/time/clock'
import { AtModemDriver } from '../../../agent/src/drivers/at_modem.js'
import { FakeModem } from '#tests/helpers/fake_modem'

const SETUP = ['ATE0', 'AT+CMEE=1', 'AT+CPIN?', 'AT+CMGF=0', 'AT+CSMS?', 'AT+CREG?', 'AT+CEREG?', 'AT+CNMI=2,1,0,1,0', 'AT+CPMS="SM","SM","SM"', 'AT+COPS=3,0', 'AT+COPS?']

async function until(predicate: () => boolean) {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 5))
}

const order = (messageId: string) => ({ messageId, to: '+33612345678', text: 'hello', simSlot: 0 })

test.group('AT modem driver: a modem that stops answering, a device that goes away', (group) => {
  let modem: FakeModem
  let driver: AtModemDriver
  let clock: ManualClock
  let log: string[]
  /** What the driver said of its readiness, in order. */
  let readiness: boolean[]
  group.each.setup(async () => {
    modem = await FakeModem.start()
    clock = new ManualClock()
    log = []
    driver = new AtModemDriver({ path: 'unused', open: () => modem.connect(), clock, log: (line) => log.push(line) })
    readiness = []
    driver.onReadiness((ready) => readiness.push(ready))
    await driver.start()
    await modem.until(() => modem.commands.includes('AT+CMGL=4'))
    return async () => {
      driver.stop()
      await modem.stop()
    }
  })

  /** The commands received since the index `from`. */
  const since = (from: number) => modem.commands.slice(from)

  test('a late answer is not taken as the next command\'s: a marker and its own answer resynchronise the channel', async ({ assert }) => {
    modem.silent = true
    const first = driver.status()
    await modem.until(() => modem.commands.includes('AT+CSQ'))
    await clock.advance(10_000)
    await modem.until(() => modem.commands.includes('AT+CMEE?'))
    // The timed-out command's answer arrives, then the modem answers the marker.
    modem.say('\r\n+CSQ: 5,99\r\n\r\nOK\r\n')
    modem.silent = false
    modem.answerLast()
    await first
    assert.deepEqual(await driver.status(), { signal: 4 })
    assert.equal(modem.resets, 0, 'one timeout then an answer: no reset')
  })

  test('silent to the idle probe: reset within bounds; an order given meanwhile waits and is sent once after the set-up', async ({ assert }) => {
    modem.silent = true
    await clock.advance(60_000)
    await modem.until(() => modem.commands.at(-1) === 'AT')
    await clock.advance(10_000)
    await modem.until(() => modem.commands.at(-1) === 'AT+CMEE?')
    await clock.advance(10_000)
    // 20 s after the probe went unanswered.
    await modem.until(() => modem.commands.at(-1) === 'ATZ')
    assert.deepEqual(readiness, [false], 'not ready from the reset on')
    const from = modem.commands.length - 1
    let outcome: unknown = null
    const sending = driver.send(order('100')).then((result) => (outcome = result))
    await new Promise((resolve) => setTimeout(resolve, 30))
    assert.isNull(outcome)
    assert.lengthOf(modem.sentCommands('AT+CMGS='), 0)
    modem.silent = false
    modem.answerLast()
    await sending
    assert.deepEqual(outcome, { ok: true })
    assert.deepEqual(since(from).slice(0, SETUP.length + 2), ['ATZ', ...SETUP, modem.sentCommands('AT+CMGS=')[0]])
    assert.lengthOf(modem.submitted, 1)
    assert.isTrue(modem.pduMode)
    assert.equal(modem.resets, 1)
    assert.isTrue(log.some((line) => /stopped answering/.test(line)))
    assert.deepEqual(readiness, [false, true])
  })

  test('an SMS under way when the modem fell silent is OUTCOME_UNKNOWN and not sent again by the reset', async ({ assert }) => {
    modem.onSubmit = () => 'silent'
    const sending = driver.send(order('101'))
    await modem.until(() => modem.submitted.length === 1)
    await clock.advance(60_000)
    assert.deepEqual(await sending, { ok: false, reason: 'OUTCOME_UNKNOWN' })
    await modem.until(() => modem.commands.at(-1) === 'AT+CMEE?')
    await clock.advance(10_000)
    await modem.until(() => modem.commands.at(-1) === 'ATZ')
    modem.onSubmit = () => 'ok'
    modem.silent = false
    modem.answerLast()
    await modem.until(() => modem.commands.includes('AT+COPS?') && modem.commands.lastIndexOf('AT+COPS?') > modem.commands.lastIndexOf('ATZ'))
    assert.lengthOf(modem.submitted, 1)
    assert.deepEqual(await driver.send(order('102')), { ok: true })
    assert.lengthOf(modem.submitted, 2)
  })

  test('a reset that gets no answer fails the orders waiting (retryable), and is tried again', async ({ assert }) => {
    modem.silent = true
    await clock.advance(60_000)
    await clock.advance(10_000)
    await modem.until(() => modem.commands.at(-1) === 'AT+CMEE?')
    await clock.advance(10_000)
    await modem.until(() => modem.commands.at(-1) === 'ATZ')
    const sending = driver.send(order('103'))
    await clock.advance(10_000)
    assert.deepEqual(await sending, { ok: false, reason: 'MODEM_NOT_ANSWERING' })
    assert.lengthOf(modem.sentCommands('AT+CMGS='), 0)
    // The marker after ATZ, then the rest of the 30 s before the next attempt.
    await clock.advance(10_000)
    await clock.advance(20_000)
    await modem.until(() => modem.sentCommands('ATZ').length === 2)
    modem.silent = false
    modem.answerLast()
    await modem.until(() => modem.pduMode)
    assert.deepEqual(await driver.send(order('104')), { ok: true })
    assert.deepEqual(readiness, [false, true], 'one change each way, however many attempts')
  })

  test('a device that goes away: orders fail MODEM_DISCONNECTED, it is opened again every 5 s and set up once back', async ({ assert }) => {
    modem.unplug()
    await until(() => log.some((line) => /went away/.test(line)))
    assert.deepEqual(readiness, [false])
    assert.deepEqual(await driver.send(order('110')), { ok: false, reason: 'MODEM_DISCONNECTED' })
    assert.deepEqual(await driver.status(), {})
    const from = modem.commands.length
    await clock.advance(5_000)
    await clock.advance(5_000)
    assert.deepEqual(since(from), [], 'still unplugged')
    modem.plugIn()
    await clock.advance(5_000)
    await modem.until(() => modem.commands.includes('AT+CMGL=4') && modem.commands.lastIndexOf('AT+CMGL=4') >= from)
    assert.deepEqual(since(from), [...SETUP, 'AT+CMGL=4'])
    assert.isTrue(modem.pduMode)
    assert.deepEqual(await driver.send(order('111')), { ok: true })
    assert.lengthOf(modem.submitted, 1)
    assert.lengthOf(log.filter((line) => /cannot open/.test(line)), 1, 'the same failure logged once')
    assert.deepEqual(readiness, [false, true])
  })
})
