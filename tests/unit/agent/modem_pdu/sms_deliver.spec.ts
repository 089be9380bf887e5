import { test } from '@japa/runner'
import { decodeDeliver, decodePdu, encodeDeliver, PduError } from '../../../../agent/src/modem/pdu/index.js'
import { decodeDataCoding } from '../../../../agent/src/modem/pdu/user_data.js'

test.group('PDU codec / SMS-DELIVER against published PDUs', () => {
  test('"Test2" from an international number, time stamp at UTC+2 (python-gsmmodem)', ({ assert }) => {
    const sms = decodeDeliver('06917228195339040B917228214365F700003130805120618005D4F29C2E03')
    assert.deepEqual(sms.serviceCentre, { value: '+2782913593', kind: 'international', ton: 1, npi: 1 })
    assert.deepEqual(sms.from, { value: '+27821234567', kind: 'international', ton: 1, npi: 1 })
    // 13-03-08 15:02:16, zone octet 0x80: +8 quarter hours.
    assert.deepEqual(sms.sentAt, { at: new Date('2013-03-08T13:02:16Z'), offsetMinutes: 120 })
    assert.equal(sms.text, 'Test2')
    assert.isNull(sms.concatenation)
    assert.deepEqual(sms.coding, { alphabet: 'gsm7', compressed: false, messageClass: null })
  })

  test('a longer text, time stamp at UTC+8 (zone octet 0x23: 32 quarter hours)', ({ assert }) => {
    const sms = decodeDeliver(
      '07915892000000F0040B915892214365F700007040213252242331493A283D0795C3F33C88FE06C9CB6132885EC6D341EDF27C1E3E97E7207B3A0C0A5241E377BB1D7693E72E'
    )
    assert.equal(sms.from.value, '+85291234567')
    assert.equal(sms.text, 'It is easy to read text messages via AT commands.')
    assert.deepEqual(sms.sentAt, { at: new Date('2007-04-12T15:25:42Z'), offsetMinutes: 480 })
  })

  test('basic-table accents and escaped extension characters: "@{tést}!"', ({ assert }) => {
    assert.equal(decodeDeliver('06917228195339040B917228214365F70000313062315352800A800D8A5E98D337A910').text, '@{tést}!')
  })

  test('an alphanumeric sender in packed GSM 7-bit, status report indication set', ({ assert }) => {
    const sms = decodeDeliver('0791448720003023240DD0E474D81C0EBB010000111011315214000BE474D81C0EBB5DE3771B')
    assert.deepEqual(sms.from, { value: 'diafaan', kind: 'alphanumeric', ton: 5, npi: 0 })
    assert.equal(sms.text, 'diafaan.com')
    assert.isTrue(sms.statusReportIndication)
    assert.deepEqual(sms.sentAt, { at: new Date('2011-01-11T13:25:41Z'), offsetMinutes: 0 })
  })

  test('a part with an 8-bit concatenation header: one fill bit, then the text (python-gsmmodem)', ({ assert }) => {
    const sms = decodeDeliver(
      '0591721891F1400781721881F800003160526104848059050003C30101916536FB1DCABEEB2074D85E064941B19CAB060319A5C522289C96D3D3ED32286C0FA7D96131BBEC024941B19CAB0603DDD36C36A88C87A7E565D0DB0D82C55EB0DB4B068BCD5C20'
    )
    assert.deepEqual(sms.from, { value: '2781188', kind: 'unknown', ton: 0, npi: 1 })
    assert.deepEqual(sms.concatenation, { reference: 0xc3, referenceBits: 8, total: 1, sequence: 1 })
    assert.equal(sms.text, 'Hello!You have R 19.50 FREE airtime available. R 19.50 will expire on 01/07/2013. ')
  })

  test('decodePdu tells the types apart by TP-MTI', ({ assert }) => {
    assert.equal(decodePdu('06917228195339040B917228214365F700003130805120618005D4F29C2E03').type, 'deliver')
    assert.equal(decodePdu('0006D60B911326880736F4111011719551401110117195714000').type, 'status-report')
    assert.equal(decodePdu('07911326040000F0310D0B911326880736F40000A90FF7FBDD454E87CDE1B0DB357EB701').type, 'submit')
    assert.throws(() => decodePdu('0003'), PduError)
  })
})

test.group('PDU codec / SMS-DELIVER, codings and headers', () => {
  const from = '+33612345678'
  const sentAt = new Date('2026-05-04T07:30:00Z')

  test('UCS-2 text, an emoji whole, time stamp west of UTC (sign bit)', ({ assert }) => {
    const hex = encodeDeliver({ from, text: 'Ça coûte 5€ 🙂', sentAt, offsetMinutes: -5 * 60 })
    // DCS 0x08; local time 02:30 on 26-05-04; zone -20 quarter hours: the digits 2 and 0
    // swapped, the sign bit with the first: 0x0A.
    assert.include(hex, '0008' + '625040200300' + '0A')
    const sms = decodeDeliver(hex)
    assert.equal(sms.text, 'Ça coûte 5€ 🙂')
    assert.deepEqual(sms.sentAt, { at: sentAt, offsetMinutes: -300 })
  })

  test('8-bit data is marked binary, its octets as hex', ({ assert }) => {
    // SMS-DELIVER, DCS 0x04, UDL 4: DE AD BE EF.
    const sms = decodeDeliver('00' + '00' + '0B913316325476F8' + '00' + '04' + '62504070030000' + '04DEADBEEF')
    assert.isTrue(sms.binary)
    assert.equal(sms.dataHex, 'DEADBEEF')
    assert.equal(sms.text, '')
    assert.equal(sms.coding.alphabet, '8bit')
  })

  test('data coding: class and compression noted, message waiting and reserved groups', ({ assert }) => {
    assert.deepEqual(decodeDataCoding(0x00), { alphabet: 'gsm7', compressed: false, messageClass: null })
    assert.deepEqual(decodeDataCoding(0x10), { alphabet: 'gsm7', compressed: false, messageClass: 0 })
    assert.deepEqual(decodeDataCoding(0x19), { alphabet: 'ucs2', compressed: false, messageClass: 1 })
    assert.deepEqual(decodeDataCoding(0x28), { alphabet: 'ucs2', compressed: true, messageClass: null })
    assert.deepEqual(decodeDataCoding(0x48), { alphabet: 'ucs2', compressed: false, messageClass: null })
    assert.deepEqual(decodeDataCoding(0xf2), { alphabet: 'gsm7', compressed: false, messageClass: 2 })
    assert.deepEqual(decodeDataCoding(0xf5), { alphabet: '8bit', compressed: false, messageClass: 1 })
    assert.deepEqual(decodeDataCoding(0xc8), { alphabet: 'gsm7', compressed: false, messageClass: null })
    assert.deepEqual(decodeDataCoding(0xe0), { alphabet: 'ucs2', compressed: false, messageClass: null })
    assert.deepEqual(decodeDataCoding(0x84), { alphabet: 'gsm7', compressed: false, messageClass: null })
  })

  test('compressed text is not read as text: binary, its octets as hex', ({ assert }) => {
    const sms = decodeDeliver('00' + '00' + '0B913316325476F8' + '00' + '20' + '62504070030000' + '021234')
    assert.isTrue(sms.coding.compressed)
    assert.isTrue(sms.binary)
    assert.equal(sms.dataHex, '1234')
  })

  test('16-bit concatenation header, other elements skipped, fill bits after the header', ({ assert }) => {
    // UDHI; header: 0A = 10 octets: 24 01 00 (a language shift, skipped), 08 04 12 34 03 02;
    // 11 octets = 88 bits, 13 septets (91 bits): 3 fill bits, then "Hi" (15 septets, 14 octets).
    const header = [0x0a, 0x24, 0x01, 0x00, 0x08, 0x04, 0x12, 0x34, 0x03, 0x02]
    const hi = [0x48, 0x69]
    const octets = new Uint8Array(14)
    octets.set(header)
    // "H" at bit 91, "i" at bit 98.
    octets[11] = (hi[0] << 3) & 0xff
    octets[12] = (hi[0] >> 5) | ((hi[1] << 2) & 0xff)
    octets[13] = hi[1] >> 6
    const hex = '00' + '40' + '0B913316325476F8' + '0000' + '62504070030000' + (13 + 2).toString(16).padStart(2, '0') + Buffer.from(octets).toString('hex')
    const sms = decodeDeliver(hex)
    assert.deepEqual(sms.concatenation, { reference: 0x1234, referenceBits: 16, total: 3, sequence: 2 })
    assert.deepEqual(sms.skippedElements, [0x24])
    assert.equal(sms.text, 'Hi')
  })

  test('a concatenation element with sequence 0 or past its total is ignored', ({ assert }) => {
    const bad = (total: number, sequence: number) =>
      decodeDeliver('00' + '40' + '0B913316325476F8' + '0000' + '62504070030000' + '07' + `050003AB${total.toString(16).padStart(2, '0')}${sequence.toString(16).padStart(2, '0')}00`)
    assert.isNull(bad(2, 0).concatenation)
    assert.isNull(bad(2, 3).concatenation)
    assert.isNull(bad(0, 0).concatenation)
    assert.deepEqual(bad(2, 2).concatenation, { reference: 0xab, referenceBits: 8, total: 2, sequence: 2 })
  })

  test('round trips: national, alphanumeric and international senders; gsm7 and ucs2 parts with headers', ({ assert }) => {
    const cases = [
      { from: '0612345678', text: 'Rendez-vous à 10h' },
      { from: 'MyShop', text: 'Code: 1234 {ok} €' },
      { from: '+447911123456', text: 'Ünïcödé ✓', concatenation: { reference: 7, referenceBits: 8 as const, total: 2, sequence: 1 } },
      { from: '+447911123456', text: 'a'.repeat(152), concatenation: { reference: 700, referenceBits: 16 as const, total: 2, sequence: 2 } },
    ]
    for (const fields of cases) {
      const sms = decodeDeliver(encodeDeliver({ ...fields, sentAt, serviceCentre: '+33609001390' }))
      assert.equal(sms.text, fields.text)
      assert.equal(sms.from.value, fields.from)
      assert.deepEqual(sms.concatenation, fields.concatenation ?? null)
      assert.equal(sms.serviceCentre?.value, '+33609001390')
      assert.deepEqual(sms.sentAt?.at, sentAt)
    }
  })

  test('a stamp that is no date gives null, the text is still read', ({ assert }) => {
    const sms = decodeDeliver('00' + '00' + '0B913316325476F8' + '0000' + '62F04070030000' + '02C834')
    assert.isNull(sms.sentAt)
    assert.equal(sms.text, 'Hi')
  })

  test('a truncated PDU is a PduError naming the field', ({ assert }) => {
    assert.throws(() => decodeDeliver('06917228195339040B917228214365F7000031308051'), /TP-SCTS/)
    assert.throws(() => decodeDeliver('0691722819533904'), /TP-OA/)
    assert.throws(() => decodeDeliver('xyz'), PduError)
  })
})
