import { test } from '@japa/runner'
import { Deliver, parse, Submit, utils } from 'node-pdu'
import { decodeDeliver, decodeStatusReport, encodeSubmit, Reassembly } from '../../../../agent/src/modem/pdu/index.js'
import { oracleSubmit, specValidityMinutes, validityOctet, WHOLE_TEXTS } from '../pdu_oracle.js'

/*
 * Our codec against another implementation: node-pdu (MIT, a devDependency) reads the
 * SMS-SUBMIT PDUs we write and writes SMS-DELIVER PDUs we read. Where node-pdu is wrong or
 * lacks a feature, the check is against TS 23.040 itself, said so at that place:
 * - it reads a relative TP-VP above 143 wrongly: that octet is checked against the standard's
 *   table (../pdu_oracle.ts);
 * - it writes no SMS-STATUS-REPORT: those come from PDUs published by others;
 * - its SMS-DELIVER split counts characters, not septets, and always uses a 16-bit reference,
 *   so 8-bit references inbound are covered by the codec's own tests.
 */

test.group('PDU codec against node-pdu / SMS-SUBMIT we write, node-pdu reads', () => {
  test('single, long GSM 7-bit, long UCS-2, emoji: each part read back by node-pdu gives the text, the number, DCS, SRR, TP-VP and the concatenation header', ({ assert }) => {
    for (const [what, text] of WHOLE_TEXTS) {
      const encoded = encodeSubmit('+33612345678', text, { reference: 200 })
      const read = encoded.parts.map((part) => oracleSubmit(part.pdu))
      assert.equal(read.map((part) => part.text).join(''), text, what)
      for (const [index, part] of read.entries()) {
        assert.deepInclude(part, { to: '33612345678', toType: 0x91, dcs: encoded.encoding === 'gsm7' ? 0x00 : 0x08, srr: 1, vpf: 2, mr: 0 }, what)
        assert.equal(validityOctet(encoded.parts[index].pdu), 0xa7, what)
        if (read.length === 1) assert.deepInclude(part, { udhi: 0, concatenation: null }, what)
        else assert.deepInclude(part, { udhi: 1, concatenation: { iei: 0x00, reference: 200, total: read.length, sequence: index + 1 } }, what)
      }
    }
    // The expected part counts, from the gateway's rules (153 septets / 67 units a part).
    assert.deepEqual(
      WHOLE_TEXTS.map(([, text]) => encodeSubmit('+33612345678', text, { reference: 1 }).parts.length),
      [1, 2, 3, 4]
    )
  })

  test('a 16-bit reference (IEI 08), a national number, no status report, no or another validity period', ({ assert }) => {
    const text = 'b'.repeat(200)
    const encoded = encodeSubmit('0612345678', text, { reference: 0x1234, referenceBits: 16, statusReport: false, validityMinutes: null })
    const read = encoded.parts.map((part) => oracleSubmit(part.pdu))
    assert.equal(read.map((part) => part.text).join(''), text)
    assert.deepEqual(
      read.map((part) => part.concatenation),
      [1, 2].map((sequence) => ({ iei: 0x08, reference: 0x1234, total: 2, sequence }))
    )
    for (const part of read) assert.deepInclude(part, { to: '0612345678', toType: 0x81, srr: 0, vpf: 0 })

    // node-pdu reads 0-143 right: the 5-minute steps.
    const short = parse(encodeSubmit('+33612345678', 'x', { reference: 0, validityMinutes: 60 }).parts[0].pdu) as Submit
    assert.equal(short.validityPeriod.interval, 60 * 60)
    // Above, TS 23.040's table (node-pdu is wrong there, see above).
    for (const minutes of [5, 12 * 60, 24 * 60, 3 * 24 * 60, 30 * 24 * 60, 5 * 7 * 24 * 60]) {
      assert.equal(specValidityMinutes(validityOctet(encodeSubmit('+33612345678', 'x', { reference: 0, validityMinutes: minutes }).parts[0].pdu)), minutes, `${minutes} minutes`)
    }
  })
})

test.group('PDU codec against node-pdu / SMS-DELIVER node-pdu writes, we read', () => {
  const sentAt = new Date('2026-05-04T09:30:00Z')
  const deliver = (from: string, text: string) => {
    const pdu = new Deliver(from, text, { serviceCenterTimeStamp: new utils.SCTS(sentAt, 120) })
    pdu.setServiceCenterAddress('+33609001390')
    return pdu.getPartStrings()
  }

  test('one SMS in GSM 7-bit, with extension characters, and in UCS-2: sender, time, text', ({ assert }) => {
    for (const text of ['Hello gateway [ok] {1} ~ ^ | \\', 'Grüße aus Köln ✓ Привет']) {
      const [pdu] = deliver('+447911123456', text)
      const read = decodeDeliver(pdu)
      assert.equal(read.text, text)
      assert.equal(read.serviceCentre?.value, '+33609001390')
      assert.deepInclude(read.from, { value: '+447911123456', kind: 'international' })
      assert.deepEqual(read.sentAt, { at: sentAt, offsetMinutes: 120 })
      assert.isNull(read.concatenation)
    }
  })

  test('long SMS in parts under a 16-bit reference, out of order and one twice, put together', ({ assert }) => {
    for (const text of ['Long text [with] {braces}, read back in order. '.repeat(7), 'Длинное сообщение ✓ '.repeat(9), '😀 node-pdu cuts UTF-16 units, so an emoji may be cut in two 🌍 '.repeat(4)]) {
      const parts = deliver('+447911123456', text)
      assert.isAbove(parts.length, 2)
      const decoded = parts.map((pdu) => decodeDeliver(pdu))
      for (const [index, part] of decoded.entries()) assert.deepInclude(part.concatenation, { referenceBits: 16, total: parts.length, sequence: index + 1 })
      const reassembly = new Reassembly({ now: () => 0 })
      // The last part first, the first one twice, then the others.
      const arrivals = [parts.length - 1, 0, 0, ...decoded.keys()].filter((index, at) => at < 3 || (index > 0 && index < parts.length - 1))
      const wholes = arrivals.map((index) => reassembly.add(decoded[index]))
      assert.deepEqual(wholes.slice(0, -1), wholes.slice(0, -1).map(() => null))
      const whole = wholes.filter((each) => each)
      assert.lengthOf(whole, 1)
      assert.equal(whole[0]!.text, text)
    }
  })
})

test.group('PDU codec against published PDUs / SMS-STATUS-REPORT (node-pdu writes none)', () => {
  test('python-gsmmodem\'s delivered report, and the same report with TP-ST edited to 0x46', ({ assert }) => {
    // From python-gsmmodem's test suite (test_pdu.py): TP-MR 214 about +31628870634, delivered.
    const published = '0006D60B911326880736F4111011719551401110117195714000'
    assert.deepInclude(decodeStatusReport(published), { messageReference: 214 })
    assert.deepEqual(decodeStatusReport(published).status, { outcome: 'delivered', code: 'DELIVERED', status: 0 })
    assert.deepEqual(decodeStatusReport(published.slice(0, -2) + '46').status, { outcome: 'failed', code: 'VALIDITY_PERIOD_EXPIRED', status: 0x46 })
  })
})
