import { test } from '@japa/runner'
import { decodeSubmit, encodeRelativeValidity, encodeSubmit, PduError } from '../../../../agent/src/modem/pdu/index.js'
import { decodeRelativeValidity } from '../../../../agent/src/modem/pdu/timestamp.js'
import { packSeptets, toSeptets, unpackSeptets } from '../../../../agent/src/modem/pdu/septets.js'

const LOREM =
  'Lorem ipsum dolor sit amet, consectetur adipisicing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.Ut enim ad minim veniam, quinostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.Duis aute irure dolor in reprehenderit in voluptate velit esse cillum doloe eu fugiat nulla pariatur.Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt mollit anim id est laborum'

/**
 * The three parts of LOREM as python-gsmmodem's test suite has them (reference 0, no status
 * report, no validity period). Its first octet, 0x45, also sets TP-RD (reject duplicates),
 * which we never set: ours is 0x41, the rest is the same octet for octet.
 */
const LOREM_PARTS = [
  '0045000B915121551532F40000A0050003000301986F79B90D4AC3E7F53688FC66BFE5A0799A0E0AB7CB741668FC76CFCB637A995E9783C2E4343C3D4F8FD3EE33A8CC4ED359A079990C22BF41E5747DDE7E9341F4721BFE9683D2EE719A9C26D7DD74509D0E6287C56F791954A683C86FF65B5E06B5C36777181466A7E3F5B0AB4A0795DDE936284C06B5D3EE741B642FBBD3E1360B14AFA7DD',
  '0045000B915121551532F40000A0050003000302DE73BABC4E0695F165F9384D0FD3D36F37A8CE6687DBE337881D16BFE5E939C89D9EA741753A28CC4EC7EB6938A88C0795C3A0F1BBDD7E93DFA0F1DB3D2FC7EB61BA8B584FCF41E13ABD0C4ACBEBF23288FC66BFE5A0B41B242FC3E56574D94D2ECBD37450DA0DB2BFD975383D4C2F83EC65769A0E2ACFE765D038CD66D7DB20F29BFD2E83CA',
  '0045000B915121551532F400008C050003000303EA2073FD9C0ED341EE3A9B1D06C1C3F274985E97BB8AF871194E2FD7E5A079DA4D07BDC7E370791CA683C675789A1CA687E920F7DB0D82CBDF6972D94D6781E675371D947683C675363C0C8AD7D3A0B7D99C1EA7C32072795E96D7DD7450FBCD66A7E9A0B03BDD06A5C9A0F29C0E6287C56F79BD0D',
]

test.group('PDU codec / SMS-SUBMIT against published PDUs', () => {
  test('"hellohello", relative validity of 4 days, no status report (the classic worked example)', ({ assert }) => {
    const { encoding, parts } = encodeSubmit('+46708251358', 'hellohello', { reference: 0, statusReport: false, validityMinutes: 4 * 24 * 60 })
    assert.equal(encoding, 'gsm7')
    assert.deepEqual(parts, [{ pdu: '0011000B916407281553F80000AA0AE8329BFD4697D9EC37', length: 23 }])
  })

  test('"Hello World!" without a validity period (python-gsmmodem)', ({ assert }) => {
    const { parts } = encodeSubmit('+27820001111', 'Hello World!', { reference: 0, statusReport: false, validityMinutes: null })
    assert.deepEqual(parts, [{ pdu: '0001000B917228001011F100000CC8329BFD065DDF72363904', length: 24 }])
  })

  test('a 439-character text in three parts with 8-bit reference headers (python-gsmmodem)', ({ assert }) => {
    const { parts } = encodeSubmit('+15125551234', LOREM, { reference: 0, statusReport: false, validityMinutes: null })
    assert.deepEqual(
      parts.map((part) => part.pdu),
      LOREM_PARTS.map((pdu) => `0041${pdu.slice(4)}`)
    )
    // The length AT+CMGS takes: the whole PDU but the `00` service centre octet.
    assert.deepEqual(
      parts.map((part) => part.length),
      LOREM_PARTS.map((pdu) => pdu.length / 2 - 1)
    )
  })
})

test.group('PDU codec / SMS-SUBMIT, our defaults', () => {
  test('status report asked, 24 h validity, message reference 0, the SIM service centre', ({ assert }) => {
    const [part] = encodeSubmit('+33612345678', 'Hi', { reference: 0 }).parts
    // 00 SMSC | 31 = SUBMIT + VPF relative + SRR | 00 MR | 0B 91 336121436587F8 | 00 PID | 00 DCS | A7 = 24 h | 02 C834
    assert.equal(part.pdu, '0031000B913316325476F80000A702C834')
    assert.equal(part.length, 16)
    const decoded = decodeSubmit(part.pdu)
    assert.isTrue(decoded.statusReport)
    assert.deepEqual(decoded.validity, { minutes: 24 * 60 })
    assert.equal(decoded.messageReference, 0)
    assert.isNull(decoded.serviceCentre)
  })

  test('a national number goes with type of number unknown (0x81), digits as given', ({ assert }) => {
    const [part] = encodeSubmit('0612345678', 'Hi', { reference: 0 }).parts
    assert.equal(part.pdu.slice(6, 20), '0A816021436587')
    assert.deepEqual(decodeSubmit(part.pdu).to, { value: '0612345678', kind: 'unknown', ton: 0, npi: 1 })
  })

  test('UCS-2: DCS 0x08 and UTF-16 big-endian, an emoji as its surrogate pair', ({ assert }) => {
    const { encoding, parts } = encodeSubmit('+33612345678', 'Café 🙂', { reference: 0 })
    assert.equal(encoding, 'ucs2')
    // After the address: 00 PID | 08 DCS | A7 VP | 0E = 14 octets | C a f é space U+D83D U+DE42
    assert.equal(parts[0].pdu.slice(22), '0008A70E00430061006600E90020D83DDE42')
    assert.equal(decodeSubmit(parts[0].pdu).userData.text, 'Café 🙂')
  })

  test('a part header of 6 octets is followed by one fill bit (gsm7); UDL counts the header septets', ({ assert }) => {
    const { parts } = encodeSubmit('+33612345678', 'a'.repeat(153) + 'b' + 'a'.repeat(7), { reference: 0x2a })
    assert.lengthOf(parts, 2)
    // UDHI set (0x71). Part 1: UDL 0xA0 = 7 header septets + 153; 050003 2A 02 01, then "a"
    // (0x61) past the fill bit: 0x61 << 1 = 0xC2; the next "a" fills octet 8's low 7 bits and
    // the one after puts its low bit in its top bit: 0xE1.
    assert.equal(parts[0].pdu.slice(0, 4), '0071')
    assert.equal(parts[0].pdu.slice(22, 46), '0000A7A00500032A0201C2E1')
    // Part 2: UDL 0x0F = 7 + 8; "b" (0x62) << 1 = 0xC4.
    assert.equal(parts[1].pdu.slice(22, 44), '0000A70F0500032A0202C4')
  })

  test('16-bit references: IEI 0x08, a header of 7 octets and no fill bit', ({ assert }) => {
    const { parts } = encodeSubmit('+33612345678', 'a'.repeat(152) + 'b' + 'a'.repeat(8), { reference: 0x1234, referenceBits: 16 })
    assert.lengthOf(parts, 2)
    // UDL 0x11 = 8 header septets + 9; "b" (0x62) starts right after the header, in octet 8's
    // low 7 bits, and the next "a" sets its top bit: 0xE2.
    assert.equal(parts[1].pdu.slice(22, 46), '0000A71106080412340202E2')
    assert.deepEqual(decodeSubmit(parts[1].pdu).userData.header?.concatenation, { reference: 0x1234, referenceBits: 16, total: 2, sequence: 2 })
  })

  test('UCS-2 parts carry the header as is, 67 characters after it', ({ assert }) => {
    const { parts } = encodeSubmit('+33612345678', 'ç'.repeat(71), { reference: 9 })
    assert.lengthOf(parts, 2)
    assert.equal(decodeSubmit(parts[0].pdu).userData.text, 'ç'.repeat(67))
    // UDL 0x0E = 6 header octets + 4 × 2.
    assert.equal(parts[1].pdu.slice(22), '0008A70E050003090202' + '00E7'.repeat(4))
  })

  test('refuses what it cannot send, naming the field, never the number', ({ assert }) => {
    const refused = (call: () => unknown) => {
      try {
        call()
      } catch (error) {
        assert.instanceOf(error, PduError)
        return (error as Error).message
      }
      assert.fail('not refused')
    }
    assert.notInclude(refused(() => encodeSubmit('+33 6 12 34', 'x', { reference: 0 }))!, '33')
    assert.include(refused(() => encodeSubmit('+' + '1'.repeat(21), 'x', { reference: 0 }))!, 'destination address')
    assert.include(refused(() => encodeSubmit('+33612345678', '', { reference: 0 }))!, 'empty')
    assert.include(refused(() => encodeSubmit('+33612345678', 'x', { reference: 256 }))!, 'reference')
    assert.include(refused(() => encodeSubmit('+33612345678', 'x', { reference: 0, validityMinutes: 0 }))!, 'validity')
  })
})

test.group('PDU codec / relative validity period', () => {
  test('known octets: 30 min 5, 16 h 151, 24 h 167, 3 days 169, 4 days 170, 5 weeks 197, 63 weeks 255', ({ assert }) => {
    const cases: Array<[number, number]> = [
      [30, 5],
      [16 * 60, 151],
      [24 * 60, 167],
      [3 * 1440, 169],
      [4 * 1440, 170],
      [5 * 7 * 1440, 197],
      [63 * 7 * 1440, 255],
    ]
    for (const [minutes, octet] of cases) {
      assert.equal(encodeRelativeValidity(minutes), octet, `${minutes} min`)
      assert.equal(decodeRelativeValidity(octet), minutes, `octet ${octet}`)
    }
  })

  test('a period between two steps takes the longer one', ({ assert }) => {
    assert.equal(decodeRelativeValidity(encodeRelativeValidity(7)), 10)
    assert.equal(decodeRelativeValidity(encodeRelativeValidity(12 * 60 + 1)), 12 * 60 + 30)
    assert.equal(decodeRelativeValidity(encodeRelativeValidity(25 * 60)), 2 * 1440)
    assert.equal(decodeRelativeValidity(encodeRelativeValidity(31 * 1440)), 5 * 7 * 1440)
    for (let octet = 0; octet <= 255; octet++) assert.equal(encodeRelativeValidity(decodeRelativeValidity(octet)), octet)
  })
})

test.group('PDU codec / septets', () => {
  test('packing as python-gsmmodem\'s table has it, extension characters escaped', ({ assert }) => {
    const cases: Array<[string, number[]]> = [
      ['123', [49, 217, 12]],
      ['Hello World!', [200, 50, 155, 253, 6, 93, 223, 114, 54, 57, 4]],
      ['[{abc}]~', [27, 222, 6, 21, 22, 143, 55, 169, 141, 111, 211, 3]],
      ['{åΦΓΛΩΠΨΣΘ€}', [27, 212, 67, 50, 161, 84, 44, 23, 76, 102, 83, 222, 164, 0]],
    ]
    for (const [text, packed] of cases) {
      const septets = toSeptets(text)
      assert.deepEqual([...packSeptets(septets)], packed, text)
      assert.deepEqual(unpackSeptets(packed, septets.length), septets, text)
    }
  })
})
