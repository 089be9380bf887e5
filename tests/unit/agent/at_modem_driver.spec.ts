import { test } from '@japa/runner'
import { AtModemDriver } from '../../../agent/src/drivers/at_modem.js'
import { startFakeModem } from '#tests/helpers/fake_modem'

test.group('AT modem driver (against a modem simulated on a pseudo-terminal)', (group) => {
  let modem: Awaited<ReturnType<typeof startFakeModem>>
  let driver: AtModemDriver
  group.each.setup(async () => {
    modem = await startFakeModem()
    driver = new AtModemDriver({ path: modem.path, commandTimeoutMs: 5000 })
    await driver.start()
    return () => {
      driver.stop()
      modem.stop()
    }
  })

  test('sets the modem up for text mode, status reports and new-SMS notices', async ({ assert }) => {
    // The modem's own account of what it was asked arrives on another pipe: wait for the last.
    await modem.waitFor((event) => event.event === 'command' && event.line === 'AT+CNMI=2,1,0,1,0')
    const commands = modem.events.filter((event) => event.event === 'command').map((event) => event.line)
    assert.deepEqual(commands, ['ATE0', 'AT+CMGF=1', 'AT+CSCS="GSM"', 'AT+CSMP=49,167,0,0', 'AT+CNMI=2,1,0,1,0'])
  })

  test('sends with AT+CMGS and the text after the prompt; a status report marks it delivered', async ({ assert }) => {
    const delivered: string[] = []
    driver.onDelivered((messageId) => delivered.push(messageId))
    const outcome = await driver.send({ messageId: '41', to: '+33612345678', text: 'Your code is 1234', simSlot: 0 })
    assert.deepEqual(outcome, { ok: true })
    const sent = await modem.waitFor((event) => event.event === 'sent')
    assert.deepInclude(sent, { to: '+33612345678', text: 'Your code is 1234' })
    modem.tell({ type: 'receipt', mr: sent.mr, status: 0 })
    while (!delivered.length) await new Promise((resolve) => setTimeout(resolve, 5))
    assert.deepEqual(delivered, ['41'])
  })

  test('a text outside plain ASCII goes as UCS2 hex, then the modem is set back to GSM', async ({ assert }) => {
    await modem.waitFor((event) => event.event === 'command' && event.line === 'AT+CNMI=2,1,0,1,0')
    const before = modem.events.length
    assert.deepEqual(await driver.send({ messageId: '44', to: '+33612345678', text: 'Café €5 🙂', simSlot: 0 }), { ok: true })
    const sent = await modem.waitFor((event) => event.event === 'sent' && event.mr !== undefined && modem.events.indexOf(event) >= before)
    assert.equal(sent.to, '002B00330033003600310032003300340035003600370038')
    assert.equal(sent.text, '00430061006600E9002020AC00350020D83DDE42')
    await modem.waitFor((event) => event.event === 'command' && event.line === 'AT+CSMP=49,167,0,0' && modem.events.indexOf(event) >= before)
    const commands = modem.events.slice(before).filter((event) => event.event === 'command').map((event) => event.line)
    assert.deepEqual(commands.slice(0, 2), ['AT+CSCS="UCS2"', 'AT+CSMP=49,167,0,8'])
    assert.deepEqual(commands.slice(-2), ['AT+CSCS="GSM"', 'AT+CSMP=49,167,0,0'])
  })

  test('a +CMS ERROR is a failed attempt with its code', async ({ assert }) => {
    assert.deepEqual(await driver.send({ messageId: '42', to: '+33612345678', text: 'FAIL this one', simSlot: 0 }), { ok: false, reason: 'CMS_ERROR_500' })
    // The modem keeps working after an error.
    assert.deepEqual(await driver.send({ messageId: '43', to: '+33612345678', text: 'fine', simSlot: 0 }), { ok: true })
  })

  test('a +CMTI notice is read with AT+CMGR, reported, and deleted from the SIM', async ({ assert }) => {
    const received: any[] = []
    driver.onInbound((sms) => received.push(sms))
    modem.tell({ type: 'inbound', from: '+447911123456', body: 'Hello modem' })
    await modem.waitFor((event) => event.event === 'command' && String(event.line).startsWith('AT+CMGD='))
    while (!received.length) await new Promise((resolve) => setTimeout(resolve, 5))
    assert.deepInclude(received[0], { from: '+447911123456', body: 'Hello modem', simSlot: 0 })
    assert.match(received[0].ref, /^modem-/)
  })

  test('signal strength comes from AT+CSQ as 0 to 4 bars', async ({ assert }) => {
    assert.deepEqual(await driver.status(), { signal: 3 })
  })
})
