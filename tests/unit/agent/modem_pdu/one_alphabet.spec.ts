import { test } from '@japa/runner'
import { readFile } from 'node:fs/promises'
import { countSegments as gatewayCount } from '#core/sms/segment_counter'
import { countSegments, splitText } from '../../../../agent/src/sms_parts.js'
import { decodeSubmit, encodeSubmit } from '../../../../agent/src/modem/pdu/index.js'

const a = (n: number) => 'a'.repeat(n)
const E = '\u20ac' // €: an extension-table character, 2 septets
const GRIN = '\u{1F600}' // a surrogate pair: 2 UTF-16 code units
const c = '\u00e7' // ç: outside GSM 7-bit (only Ç is in it)

/**
 * Texts through the gateway's counter and through the PDU encoder. `expected` is counted by
 * hand, so a rule broken in the one shared file fails here too, not only a disagreement.
 */
const corpus: Array<{ name: string; text: string; expected: [string, number] }> = [
  { name: 'ASCII', text: 'Your code is 1234', expected: ['gsm7', 1] },
  { name: '160 septets', text: a(160), expected: ['gsm7', 1] },
  { name: '161 septets', text: a(161), expected: ['gsm7', 2] },
  { name: '153 septets', text: a(153), expected: ['gsm7', 1] },
  { name: '306 septets = 2 × 153', text: a(306), expected: ['gsm7', 2] },
  { name: '307 septets', text: a(307), expected: ['gsm7', 3] },
  { name: 'every extension character', text: '^{}\\[~]|\u20ac\f', expected: ['gsm7', 1] },
  { name: '159 + € = 161 septets: € goes to part 2 whole', text: a(159) + E, expected: ['gsm7', 2] },
  { name: '152 + € + 152: the escape pair cannot end part 1', text: a(152) + E + a(152), expected: ['gsm7', 3] },
  { name: '152 + [ at the boundary, then more', text: a(152) + '[' + a(10), expected: ['gsm7', 2] },
  { name: '81 × € = 162 septets', text: E.repeat(81), expected: ['gsm7', 2] },
  { name: 'accents in GSM 7-bit (é è à ù Ä Ö Ñ Ü ß Ç)', text: '\u00e9\u00e8\u00e0\u00f9\u00c4\u00d6\u00d1\u00dc\u00df\u00c7', expected: ['gsm7', 1] },
  { name: 'accent outside GSM 7-bit (ç)', text: '\u00e7a va ?', expected: ['ucs2', 1] },
  { name: 'accents outside (á ê ő)', text: 'Olá, você, hő', expected: ['ucs2', 1] },
  { name: '70 UCS-2 units', text: c + a(69), expected: ['ucs2', 1] },
  { name: '71 UCS-2 units', text: c + a(70), expected: ['ucs2', 2] },
  { name: '67 UCS-2 units', text: c + a(66), expected: ['ucs2', 1] },
  { name: '134 UCS-2 units = 2 × 67', text: c + a(133), expected: ['ucs2', 2] },
  { name: '135 UCS-2 units', text: c + a(134), expected: ['ucs2', 3] },
  { name: 'emoji ending part 1 exactly', text: c + a(64) + GRIN + a(10), expected: ['ucs2', 2] },
  { name: 'emoji straddling 67: it moves whole', text: c + a(65) + GRIN + a(66), expected: ['ucs2', 3] },
  { name: '36 emoji', text: GRIN.repeat(36), expected: ['ucs2', 2] },
  { name: 'GSM 7-bit text with one emoji goes UCS-2', text: a(100) + GRIN, expected: ['ucs2', 2] },
  { name: '100 × "Price €5 {promo} " (20 septets) = 2,000 = 13 × 153 + 11', text: ('Price ' + E + '5 {promo} ').repeat(100), expected: ['gsm7', 14] },
]

test.group('One alphabet: the gateway counts what the modem sends', () => {
  test('{name}')
    .with(corpus)
    .run(({ assert }, { text, expected }) => {
      const counted = gatewayCount(text)
      assert.deepEqual([counted.encoding, counted.segments], expected)

      const encoded = encodeSubmit('+33612345678', text, { reference: 77 })
      assert.equal(encoded.encoding, counted.encoding)
      assert.lengthOf(encoded.parts, counted.segments)

      const decoded = encoded.parts.map((part) => decodeSubmit(part.pdu))
      const texts = decoded.map((part) => part.userData.text)
      assert.equal(texts.join(''), text)
      for (const [index, part] of decoded.entries()) {
        assert.equal(part.coding.alphabet, counted.encoding)
        // No surrogate pair cut: a part neither starts with a low half nor ends with a high one.
        assert.notMatch(texts[index], /^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/)
        const concatenation = part.userData.header?.concatenation ?? null
        if (encoded.parts.length === 1) assert.isNull(concatenation)
        else assert.deepEqual(concatenation, { reference: 77, referenceBits: 8, total: encoded.parts.length, sequence: index + 1 })
      }
      // Each part is read alone by the phone that receives it: an escape pair cut in two would
      // leave one part ending in a lone ESC and the next starting with a misread character.
      assert.deepEqual(texts, splitText(text).parts)
    })

  test('the gateway imports the agent file itself, and that file imports nothing', async ({ assert }) => {
    assert.strictEqual(gatewayCount, countSegments)
    const source = await readFile(new URL('../../../../agent/src/sms_parts.ts', import.meta.url), 'utf8')
    assert.notMatch(source, /^\s*(import|export)\s[^\n]*\sfrom\s/m)
  })

  test('16-bit references leave a septet (or a character) less in each part', ({ assert }) => {
    assert.lengthOf(encodeSubmit('+33612345678', a(306), { reference: 1, referenceBits: 16 }).parts, 3)
    assert.deepEqual(splitText(a(304), 16).parts, [a(152), a(152)])
    assert.deepEqual(splitText(c + a(131), 16).parts, [c + a(65), a(66)])
  })
})
