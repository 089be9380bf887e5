/*
 * SMS encoding and segment counting, following GSM 03.38 / 3GPP TS 23.038 (alphabet) and
 * TS 23.040 (concatenated SMS), the way a phone splits a text before sending it.
 *
 * - If every character is in the GSM 7-bit default alphabet, the text is sent as gsm7:
 *   a basic-table character takes 1 septet, an extension-table character takes 2 (ESC + char).
 *   One SMS holds 160 septets; a longer text is split into parts of 153 septets (the other
 *   7 septets hold the concatenation header). An ESC + char pair is never split across parts.
 * - Otherwise the WHOLE text is sent as ucs2 (UTF-16): one SMS holds 70 code units, a part of a
 *   longer text 67. A surrogate pair (emoji, ...) is never split across parts.
 *
 * Parts are filled greedily: a character that does not fit in the current part starts the next.
 * National language shift tables (Turkish, Spanish, Portuguese, Indic, ...) are not used.
 */

export type SmsEncoding = 'gsm7' | 'ucs2'

export interface SegmentCount {
  encoding: SmsEncoding
  segments: number
  /** septets for gsm7, UTF-16 code units for ucs2 */
  units: number
}

/** Units one SMS holds, and units each part of a concatenated SMS holds (after its header). */
const CAPACITY: Record<SmsEncoding, { single: number; perPart: number }> = {
  gsm7: { single: 160, perPart: 153 },
  ucs2: { single: 70, perPart: 67 },
}

const ESCAPE_POSITION = 0x1b

/**
 * The GSM 03.38 basic table in code order 0x00–0x7F, 16 codes a line. 0x1B is the escape to the
 * extension table, not a character: it is left out of the set below, so a text holding U+001B
 * as-is is not gsm7.
 */
const BASIC_TABLE =
  '@\u00a3$\u00a5\u00e8\u00e9\u00f9\u00ec\u00f2\u00c7\n\u00d8\u00f8\r\u00c5\u00e5' + // @ £ $ ¥ è é ù ì ò Ç LF Ø ø CR Å å
  '\u0394_\u03a6\u0393\u039b\u03a9\u03a0\u03a8\u03a3\u0398\u039e\u001b\u00c6\u00e6\u00df\u00c9' + // Δ _ Φ Γ Λ Ω Π Ψ Σ Θ Ξ ESC Æ æ ß É
  ' !"#\u00a4%&\'()*+,-./' + // ¤ at 0x24 where ASCII has $
  '0123456789:;<=>?' +
  '\u00a1ABCDEFGHIJKLMNO' + // ¡ at 0x40 where ASCII has @
  'PQRSTUVWXYZ\u00c4\u00d6\u00d1\u00dc\u00a7' + // Ä Ö Ñ Ü §
  '\u00bfabcdefghijklmno' + // ¿ at 0x60 where ASCII has `
  'pqrstuvwxyz\u00e4\u00f6\u00f1\u00fc\u00e0' // ä ö ñ ü à

const BASIC_CHARACTERS = new Set([...BASIC_TABLE].filter((_, code) => code !== ESCAPE_POSITION))

/** The extension table's characters (sent as ESC + char): form feed ^ { } \ [ ~ ] | € */
const EXTENSION_CHARACTERS = new Set(['\f', '^', '{', '}', '\\', '[', '~', ']', '|', '\u20ac'])

function isGsm7Character(character: string): boolean {
  return BASIC_CHARACTERS.has(character) || EXTENSION_CHARACTERS.has(character)
}

export function isGsm7(text: string): boolean {
  for (const character of text) {
    if (!isGsm7Character(character)) return false
  }
  return true
}

/** Septets of a gsm7 character, or UTF-16 code units of a ucs2 code point (2 for a surrogate pair). */
function unitsOf(character: string, encoding: SmsEncoding): number {
  if (encoding === 'ucs2') return character.length
  return EXTENSION_CHARACTERS.has(character) ? 2 : 1
}

function measure(text: string): { encoding: SmsEncoding; units: number; parts: string[] } {
  const encoding: SmsEncoding = isGsm7(text) ? 'gsm7' : 'ucs2'
  // Iterating a string yields code points, so a surrogate pair is one indivisible character.
  const characters = [...text]
  const units = characters.reduce((sum, character) => sum + unitsOf(character, encoding), 0)

  if (units === 0) return { encoding, units, parts: [] }
  if (units <= CAPACITY[encoding].single) return { encoding, units, parts: [text] }

  const perPart = CAPACITY[encoding].perPart
  const parts: string[] = []
  let current = ''
  let currentUnits = 0
  for (const character of characters) {
    const size = unitsOf(character, encoding)
    if (currentUnits + size > perPart) {
      parts.push(current)
      current = ''
      currentUnits = 0
    }
    current += character
    currentUnits += size
  }
  parts.push(current)
  return { encoding, units, parts }
}

export function countSegments(text: string): SegmentCount {
  const { encoding, units, parts } = measure(text)
  return { encoding, segments: parts.length, units }
}

/** Splits a text into the parts a phone would send (used later by the phone side); joining them gives the text back. */
export function splitIntoParts(text: string): string[] {
  return measure(text).parts
}
