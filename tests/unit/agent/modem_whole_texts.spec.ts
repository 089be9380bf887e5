import { test } from '@japa/runner'
import { Deliver, utils } from 'node-pdu'
import { ManualClock } from '#core/time/clock'
import { PhoneAgent } from '../../../agent/src/phone_agent.js'
import { AtModemDriver } from '../../../agent/src/drivers/at_modem.js'
import { FakeModem } from '#tests/helpers/fake_modem'
import { CREDENTIAL, eventually, fakeGateway } from './fake_gateway.js'
import { oracleSubmit, WHOLE_TEXTS } from './pdu_oracle.js'

/*
 * Whole texts through the agent, the modem driver and the simulated modem, the PDUs the modem
 * got read by node-pdu (not by our own decoder), and the modem's scripted faults: refusals,
 * a report before the send's answer, parts arriving out of order.
 */
test.group('Phone agent, modem driver, simulated modem: whole texts and scripted faults', (group) => {
  let modem: FakeModem
  let driver: AtModemDriver
  let clock: ManualClock
  let gateway: Awaited<ReturnType<typeof fakeGateway>>
  let agent: PhoneAgent
  group.each.setup(async () => {
    modem = await FakeModem.start()
    clock = new ManualClock()
    driver = new AtModemDriver({ path: 'unused', open: () => modem.connect(), clock })
    await driver.start()
    gateway = await fakeGateway()
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
  const accepted = () => modem.submitted.filter((part) => part.mr !== -1)

  test('single, long GSM 7-bit, long UCS-2 and emoji texts: the PDUs the modem got read back by node-pdu; delivered by their status reports', async ({ assert }) => {
    for (const [index, [, text]] of WHOLE_TEXTS.entries()) {
      gateway.order(`10${index}`, '+33612345678', text)
      await eventually(() => framesOf('sent', `10${index}`).length === 1, 10_000)
    }
    const byMessage: Array<typeof modem.submitted> = []
    let next = 0
    for (let message = 0; message < WHOLE_TEXTS.length; message++) {
      const read = oracleSubmit(modem.submitted[next].pdu)
      const count = read.concatenation?.total ?? 1
      byMessage.push(modem.submitted.slice(next, next + count))
      next += count
    }
    assert.lengthOf(modem.submitted, next, 'no part sent twice, none more')
    const references = new Set<number>()
    for (const [index, [what, text]] of WHOLE_TEXTS.entries()) {
      const parts = byMessage[index].map((part) => ({ ...oracleSubmit(part.pdu), declaredLength: part.declaredLength, tpdu: part.pdu.length / 2 - 1 }))
      assert.equal(parts.map((part) => part.text).join(''), text, what)
      for (const part of parts) {
        assert.equal(part.declaredLength, part.tpdu, what)
        assert.deepInclude(part, { to: '33612345678', srr: 1 }, what)
      }
      if (parts.length > 1) {
        assert.deepEqual(parts.map((part) => part.concatenation!.sequence), parts.map((_, at) => at + 1), what)
        assert.equal(new Set(parts.map((part) => part.concatenation!.reference)).size, 1, what)
        references.add(parts[0].concatenation!.reference!)
      }
    }
    assert.equal(references.size, 3, 'each long text its own concatenation reference')

    // Every part's report, last part first: each message delivered once, when its last part was.
    for (const part of [...modem.submitted].reverse()) modem.report({ messageReference: part.mr, status: 0 })
    await eventually(() => framesOf('delivered').length === WHOLE_TEXTS.length)
    assert.sameMembers(
      framesOf('delivered').map((frame) => frame.messageId),
      WHOLE_TEXTS.map((_, index) => `10${index}`)
    )
  })

  test('a published status report (python-gsmmodem, TP-MR 214) delivers the SMS the modem answered +CMGS: 214 for', async ({ assert }) => {
    modem.mr = 213
    gateway.order('200', '+31628870634', 'Hello')
    await eventually(() => framesOf('sent', '200').length === 1)
    assert.equal(modem.submitted[0].mr, 214)
    modem.reportPdu('0006D60B911326880736F4111011719551401110117195714000')
    await eventually(() => framesOf('delivered', '200').length === 1)
  })

  test('+CMS ERROR 38 (network out of order): failed NETWORK_BUSY, the order again is sent once; +CMS ERROR 500: failed with its code', async ({ assert }) => {
    modem.onSubmit = ({ index }) => (index === 0 ? '+CMS ERROR: 38' : index === 2 ? '+CMS ERROR: 500' : 'ok')
    gateway.order('300', '+33612345678', 'Retried once')
    await eventually(() => framesOf('failed', '300').length === 1)
    assert.deepInclude(framesOf('failed', '300')[0], { reason: 'NETWORK_BUSY' })
    // The gateway's retry: the same message ordered again.
    gateway.order('300', '+33612345678', 'Retried once')
    await eventually(() => framesOf('sent', '300').length === 1)
    gateway.order('301', '+33612345678', 'Refused for good')
    await eventually(() => framesOf('failed', '301').length === 1)
    assert.deepInclude(framesOf('failed', '301')[0], { reason: 'CMS_ERROR_500' })
    assert.deepEqual(
      accepted().map((part) => oracleSubmit(part.pdu).text),
      ['Retried once']
    )
    assert.lengthOf(modem.submitted, 3)
  })

  test('a status report before the send\'s answer (+CDS ahead of +CMGS: <mr> and OK): still matched, after the sent frame', async ({ assert }) => {
    // A long SMS's first part delivered before the second part is even sent; the second failed.
    modem.beforeAnswer = (part) => modem.report({ messageReference: part.mr, status: oracleSubmit(part.pdu).concatenation?.sequence === 2 ? 0x46 : 0 })
    gateway.order('400', '+33612345678', 'Fast network')
    await eventually(() => framesOf('sent', '400').length === 1)
    gateway.order('401', '+33612345678', 'z'.repeat(200))
    await eventually(() => framesOf('sent', '401').length === 1)
    await clock.advance(1000)
    await eventually(() => framesOf('delivered', '400').length === 1 && framesOf('failed', '401').length === 1)
    assert.deepInclude(framesOf('failed', '401')[0], { reason: 'VALIDITY_PERIOD_EXPIRED' })
    const order = gateway.frames.filter((frame) => frame.type !== 'status' && frame.type !== 'heartbeat').map((frame) => `${frame.type} ${frame.messageId}`)
    assert.isBelow(order.indexOf('sent 400'), order.indexOf('delivered 400'))
    assert.isBelow(order.indexOf('sent 401'), order.indexOf('failed 401'))
    assert.lengthOf(modem.submitted, 3)
  })

  test('long SMS written by node-pdu, parts out of order, by +CMTI and +CMT, one twice: each handed over once, whole, and deleted', async ({ assert }) => {
    const texts = ['Inbound [GSM] {7-bit} text in parts, ~ and ^ and | too. '.repeat(6), 'Входящее сообщение ✓ '.repeat(8), '🌍 emoji inbound 😀 '.repeat(9)]
    for (const [index, text] of texts.entries()) {
      const parts = new Deliver(`+4479111234${index}0`, text, { serviceCenterTimeStamp: new utils.SCTS(new Date('2026-05-04T09:30:00Z'), 0) }).getPartStrings()
      assert.isAbove(parts.length, 1)
      const arrivals = [parts.length - 1, 0, 0, ...parts.keys()].filter((at, position) => position < 3 || (at > 0 && at < parts.length - 1))
      for (const [position, at] of arrivals.entries()) modem.deliverPdu(parts[at], position === 1 ? 'cmt' : 'cmti')
    }
    await eventually(() => framesOf('inbound').length === texts.length, 10_000)
    assert.sameMembers(
      framesOf('inbound').map((frame) => frame.body),
      texts
    )
    await eventually(() => modem.stores.get('SM')!.size === 0)
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.lengthOf(framesOf('inbound'), texts.length)
  })
})
