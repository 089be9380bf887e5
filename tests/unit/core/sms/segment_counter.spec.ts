import { test } from '@japa/runner'
import {
  countSegments,
  isGsm7,
  splitIntoParts,
  type SegmentCount,
} from '#core/sms/segment_counter'
import { withShortLinkStandIns } from '#core/sms/links_in_text'

const a = (n: number) => 'a'.repeat(n)
const b = (n: number) => 'b'.repeat(n)
const GRIN = '\u{1F600}' // 😀, a surrogate pair: 2 UTF-16 code units

interface Case {
  name: string
  text: string
  expected: SegmentCount
  /** Expected parts, for the cases where the split itself is the point. */
  parts?: string[]
  /** Counted as a send with shortenLinks stores it: each address becomes a short link this long. */
  shortUrlLength?: number
}

/**
 * Every expectation below is counted by hand (see each name), not by the code under test. The
 * gateway (send answer, ledger) and the dashboard's Send page both count with this one module.
 */
const cases: Case[] = [
  { name: 'empty string', text: '', expected: { encoding: 'gsm7', segments: 0, units: 0 }, parts: [] },
  { name: 'plain ASCII', text: 'Hello, world!', expected: { encoding: 'gsm7', segments: 1, units: 13 } },

  // gsm7 boundaries: 160 in one SMS, then 153 a part.
  { name: '160 septets', text: a(160), expected: { encoding: 'gsm7', segments: 1, units: 160 } },
  {
    name: '161 septets',
    text: a(161),
    expected: { encoding: 'gsm7', segments: 2, units: 161 },
    parts: [a(153), a(8)],
  },
  { name: '306 septets = 2 × 153', text: a(306), expected: { encoding: 'gsm7', segments: 2, units: 306 } },
  {
    name: '307 septets',
    text: a(307),
    expected: { encoding: 'gsm7', segments: 3, units: 307 },
    parts: [a(153), a(153), a(1)],
  },

  // Extension characters: 2 septets each, never split.
  { name: '€', text: '\u20ac', expected: { encoding: 'gsm7', segments: 1, units: 2 } },
  { name: '^', text: '^', expected: { encoding: 'gsm7', segments: 1, units: 2 } },
  { name: '{}', text: '{}', expected: { encoding: 'gsm7', segments: 1, units: 4 } },
  { name: '[~]', text: '[~]', expected: { encoding: 'gsm7', segments: 1, units: 6 } },
  { name: '|', text: '|', expected: { encoding: 'gsm7', segments: 1, units: 2 } },
  { name: 'backslash', text: '\\', expected: { encoding: 'gsm7', segments: 1, units: 2 } },
  { name: 'form feed', text: '\f', expected: { encoding: 'gsm7', segments: 1, units: 2 } },
  {
    name: 'mixed: "Price: 5" 8 + € 2 + space 1 + { 2 + a 1 + | 2 + b 1 + } 2',
    text: 'Price: 5\u20ac {a|b}',
    expected: { encoding: 'gsm7', segments: 1, units: 19 },
  },
  { name: '152 + € = 154 septets still fits one SMS', text: a(152) + '\u20ac', expected: { encoding: 'gsm7', segments: 1, units: 154 } },
  { name: '158 + € = 160 septets', text: a(158) + '\u20ac', expected: { encoding: 'gsm7', segments: 1, units: 160 } },
  {
    name: '159 + € = 161 septets: € moves to part 2 (153 + 6 + 2)',
    text: a(159) + '\u20ac',
    expected: { encoding: 'gsm7', segments: 2, units: 161 },
    parts: [a(153), a(6) + '\u20ac'],
  },
  {
    name: '152 + € + 152 = 306 septets: € cannot end part 1, so 3 parts, not 2',
    text: a(152) + '\u20ac' + b(152),
    expected: { encoding: 'gsm7', segments: 3, units: 306 },
    parts: [a(152), '\u20ac' + b(151), b(1)],
  },
  { name: '80 × € = 160 septets', text: '\u20ac'.repeat(80), expected: { encoding: 'gsm7', segments: 1, units: 160 } },
  {
    name: '81 × € = 162 septets: 76 € (152) a part',
    text: '\u20ac'.repeat(81),
    expected: { encoding: 'gsm7', segments: 2, units: 162 },
    parts: ['\u20ac'.repeat(76), '\u20ac'.repeat(5)],
  },

  // Accents of the basic table stay gsm7.
  {
    name: 'é è à ù Ä Ö Ñ Ü ß Ç',
    text: '\u00e9\u00e8\u00e0\u00f9\u00c4\u00d6\u00d1\u00dc\u00df\u00c7',
    expected: { encoding: 'gsm7', segments: 1, units: 10 },
  },
  {
    name: 'ì ò Ø ø Å å Æ æ É ä ö ñ ü',
    text: '\u00ec\u00f2\u00d8\u00f8\u00c5\u00e5\u00c6\u00e6\u00c9\u00e4\u00f6\u00f1\u00fc',
    expected: { encoding: 'gsm7', segments: 1, units: 13 },
  },
  {
    name: 'Greek capitals Δ Φ Γ Λ Ω Π Ψ Σ Θ Ξ',
    text: '\u0394\u03a6\u0393\u039b\u03a9\u03a0\u03a8\u03a3\u0398\u039e',
    expected: { encoding: 'gsm7', segments: 1, units: 10 },
  },
  {
    name: '@ £ $ ¥ _ ¤ ¡ ¿ § (1 septet each)',
    text: '@\u00a3$\u00a5_\u00a4\u00a1\u00bf\u00a7',
    expected: { encoding: 'gsm7', segments: 1, units: 9 },
  },
  { name: 'Ça va ?', text: '\u00c7a va ?', expected: { encoding: 'gsm7', segments: 1, units: 7 } },

  // Anything else switches the whole text to ucs2 (and € etc. then count 1 code unit).
  { name: 'á', text: '\u00e1', expected: { encoding: 'ucs2', segments: 1, units: 1 } },
  { name: 'ç va ? (lowercase ç)', text: '\u00e7a va ?', expected: { encoding: 'ucs2', segments: 1, units: 7 } },
  { name: 'ê', text: '\u00ea', expected: { encoding: 'ucs2', segments: 1, units: 1 } },
  { name: 'ő', text: '\u0151', expected: { encoding: 'ucs2', segments: 1, units: 1 } },
  { name: 'í ó ú â î ô û ë ï', text: '\u00ed\u00f3\u00fa\u00e2\u00ee\u00f4\u00fb\u00eb\u00ef', expected: { encoding: 'ucs2', segments: 1, units: 9 } },
  { name: 'Greek lowercase α', text: '\u03b1', expected: { encoding: 'ucs2', segments: 1, units: 1 } },
  { name: 'Ω as OHM SIGN U+2126 (not the Greek Ω)', text: '\u2126', expected: { encoding: 'ucs2', segments: 1, units: 1 } },
  { name: 'non-breaking space', text: 'a\u00a0b', expected: { encoding: 'ucs2', segments: 1, units: 3 } },
  { name: 'ESC U+001B as-is', text: 'a\u001bb', expected: { encoding: 'ucs2', segments: 1, units: 3 } },
  { name: 'tab', text: 'a\tb', expected: { encoding: 'ucs2', segments: 1, units: 3 } },
  { name: 'backtick', text: '`', expected: { encoding: 'ucs2', segments: 1, units: 1 } },
  { name: 'á€: € is one code unit in ucs2', text: '\u00e1\u20ac', expected: { encoding: 'ucs2', segments: 1, units: 2 } },
  {
    name: '100 plain + á = 101 code units: the whole text goes ucs2 (67 + 34)',
    text: a(100) + '\u00e1',
    expected: { encoding: 'ucs2', segments: 2, units: 101 },
    parts: [a(67), a(33) + '\u00e1'],
  },

  // ucs2 boundaries: 70 in one SMS, then 67 a part.
  { name: 'ç + 69 = 70 code units', text: '\u00e7' + a(69), expected: { encoding: 'ucs2', segments: 1, units: 70 } },
  {
    name: 'ç + 70 = 71 code units',
    text: '\u00e7' + a(70),
    expected: { encoding: 'ucs2', segments: 2, units: 71 },
    parts: ['\u00e7' + a(66), a(4)],
  },
  { name: 'ç + 133 = 134 code units = 2 × 67', text: '\u00e7' + a(133), expected: { encoding: 'ucs2', segments: 2, units: 134 } },
  {
    name: 'ç + 134 = 135 code units',
    text: '\u00e7' + a(134),
    expected: { encoding: 'ucs2', segments: 3, units: 135 },
    parts: ['\u00e7' + a(66), a(67), a(1)],
  },

  // Surrogate pairs are never split.
  {
    name: 'ç + 64 + emoji ends part 1 exactly (1 + 64 + 2 = 67), then 10',
    text: '\u00e7' + a(64) + GRIN + b(10),
    expected: { encoding: 'ucs2', segments: 2, units: 77 },
    parts: ['\u00e7' + a(64) + GRIN, b(10)],
  },
  {
    name: 'ç + 65 + emoji straddles 67: it moves, 134 units take 3 parts, not 2',
    text: '\u00e7' + a(65) + GRIN + b(66),
    expected: { encoding: 'ucs2', segments: 3, units: 134 },
    parts: ['\u00e7' + a(65), GRIN + b(65), b(1)],
  },
  { name: 'one emoji', text: GRIN, expected: { encoding: 'ucs2', segments: 1, units: 2 } },
  { name: 'only emoji: 😀👍🎉', text: '\u{1F600}\u{1F44D}\u{1F389}', expected: { encoding: 'ucs2', segments: 1, units: 6 } },
  {
    name: 'family emoji: 3 pairs + 2 ZWJ = 8 code units',
    text: '\u{1F468}\u200d\u{1F469}\u200d\u{1F467}',
    expected: { encoding: 'ucs2', segments: 1, units: 8 },
  },
  { name: '35 emoji = 70 code units', text: GRIN.repeat(35), expected: { encoding: 'ucs2', segments: 1, units: 70 } },
  {
    name: '36 emoji = 72 code units: 33 emoji (66) a part',
    text: GRIN.repeat(36),
    expected: { encoding: 'ucs2', segments: 2, units: 72 },
    parts: [GRIN.repeat(33), GRIN.repeat(3)],
  },
  {
    name: '67 emoji = 134 code units: 33 + 33 + 1 emoji',
    text: GRIN.repeat(67),
    expected: { encoding: 'ucs2', segments: 3, units: 134 },
    parts: [GRIN.repeat(33), GRIN.repeat(33), GRIN],
  },

  // Line breaks are in the basic table.
  { name: 'CR LF: "Line 1" 6 + CR LF 2 + "Line 2" 6', text: 'Line 1\r\nLine 2', expected: { encoding: 'gsm7', segments: 1, units: 14 } },
  { name: '161 LF', text: '\n'.repeat(161), expected: { encoding: 'gsm7', segments: 2, units: 161 } },

  // The spec sets no length limit on a body: long texts just take more parts.
  { name: '10,000 septets = 65 × 153 + 55: 66 parts', text: a(10_000), expected: { encoding: 'gsm7', segments: 66, units: 10_000 } },
  { name: '1,000 × ç = 14 × 67 + 62: 15 parts', text: '\u00e7'.repeat(1000), expected: { encoding: 'ucs2', segments: 15, units: 1000 } },

  // shortenLinks: every address counts as a short link of shortUrlLength characters.
  {
    name: 'short link: "Voir " 5 + link 29 + " !" 2',
    text: 'Voir https://shop.example/a/very/long/path?campaign=spring-2027&ref=sms-' + a(100) + ' !',
    shortUrlLength: 29,
    expected: { encoding: 'gsm7', segments: 1, units: 36 },
  },
  {
    name: 'short link: trailing "." stays outside, two addresses: 3 + 29 + 1 + 4 + 29 + 1',
    text: 'A: https://a.example/x. B: http://b.example/y?z=1.',
    shortUrlLength: 29,
    expected: { encoding: 'gsm7', segments: 1, units: 67 },
  },
  {
    name: 'short link: an address with ü and ~ no longer decides the encoding (131 + 29 = 160)',
    text: a(131) + 'https://caf\u00e9.example/~m\u00fcller',
    shortUrlLength: 29,
    expected: { encoding: 'gsm7', segments: 1, units: 160 },
  },
  {
    name: 'short link: emoji outside the address keeps ucs2 (2 + 1 + 29)',
    text: GRIN + ' https://x.example/' + a(200),
    shortUrlLength: 29,
    expected: { encoding: 'ucs2', segments: 1, units: 32 },
  },
]

const EXTENSION = /[\f^{}\\[~\]|\u20ac]/g

/** Septets of a gsm7 text, counted independently of the module: 1 a char, 2 for the extension ones. */
function septetsOf(text: string): number {
  return text.length + (text.match(EXTENSION)?.length ?? 0)
}

test.group('Segment counter / countSegments', () => {
  test('{name}')
    .with(cases)
    .run(({ assert }, { text, expected, shortUrlLength }) => {
      const counted = shortUrlLength === undefined ? text : withShortLinkStandIns(text, shortUrlLength)
      assert.deepEqual(countSegments(counted), expected)
    })
})

test.group('Segment counter / splitIntoParts', () => {
  test('{name}')
    .with(cases.filter((testCase) => testCase.shortUrlLength === undefined))
    .run(({ assert }, { text, expected, parts }) => {
      const split = splitIntoParts(text)
      if (parts) assert.deepEqual(split, parts)
      assert.equal(split.join(''), text)
      assert.lengthOf(split, expected.segments)

      const unitsOf = expected.encoding === 'gsm7' ? septetsOf : (part: string) => part.length
      const [singleLimit, partLimit] = expected.encoding === 'gsm7' ? [160, 153] : [70, 67]
      if (split.length === 1) {
        assert.equal(split[0], text)
        assert.isAtMost(unitsOf(text), singleLimit)
      }
      if (split.length > 1) {
        for (const part of split) {
          assert.isAbove(part.length, 0)
          assert.isAtMost(unitsOf(part), partLimit)
          // No part starts with a low surrogate or ends with a high one: no pair is cut.
          assert.notMatch(part, /^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/)
        }
      }
    })
})

test.group('Segment counter / isGsm7', () => {
  test('accepts the basic and extension tables, refuses anything else', ({ assert }) => {
    assert.isTrue(isGsm7(''))
    assert.isTrue(isGsm7('Hello {world} [1|2] ~^\\ 5\u20ac\f\r\n'))
    assert.isTrue(isGsm7('\u00c7\u00c9\u00e9\u00e8\u00e0\u00f9\u00ec\u00f2\u0394\u03a9'))
    for (const outside of ['\u00e7', '\u00e1', '\u00ea', '\u0151', '\u00a0', '\u001b', '\t', '`', '\u03b1', GRIN]) {
      assert.isFalse(isGsm7(`abc${outside}`), `U+${outside.codePointAt(0)!.toString(16)}`)
    }
  })
})

test.group('Segment counter / shared with the dashboard', () => {
  test('app/core/sms imports nothing, so the browser bundle can hold it as it is', async ({ assert }) => {
    const { readdir, readFile } = await import('node:fs/promises')
    const folder = new URL('../../../../app/core/sms/', import.meta.url)
    const files = (await readdir(folder)).filter((name) => name.endsWith('.ts'))
    assert.includeMembers(files, ['segment_counter.ts', 'links_in_text.ts'])
    for (const name of files) {
      assert.notMatch(await readFile(new URL(name, folder), 'utf8'), /^\s*import\s/m, name)
    }
  })
})
