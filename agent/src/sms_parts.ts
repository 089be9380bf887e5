/*
 * How a text becomes SMS parts: the GSM 7-bit default alphabet and its extension table
 * (3GPP TS 23.038 clause 6.2.1), the choice between gsm7 and ucs2, and the split of a long text
 * into the parts of a concatenated SMS (TS 23.040 clause 9.2.3.24.1).
 *
 * This one file is both the gateway's segment counter (app/core/sms/segment_counter.ts
 * re-exports it, and the dashboard's Send page bundles it from there) and the alphabet the
 * agent's PDU codec encodes with (agent/src/modem/pdu/). It lives in agent/ because the agent
 * is shipped as build/agent/ alone; it imports nothing, so the browser bundle and the agent can
 * both hold it as it is. What the API reports as `encoding` and `segments` is therefore what a
 * modem sends.
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

/** Octets of user data one SMS carries (TS 23.040 clause 9.2.3.16: 140 octets, 160 septets). */
export const USER_DATA_OCTETS = 140

/**
 * Octets a concatenation header takes in each part's user data: its length octet (UDHL), then
 * the information element: IEI, length and 3 octets (8-bit reference, IEI 0x00) or 4 (16-bit
 * reference, IEI 0x08).
 */
export const CONCATENATION_HEADER_OCTETS: Record<8 | 16, number> = { 8: 6, 16: 7 }

/** Units one SMS holds, and units each part of a concatenated SMS holds after its header. */
export function capacityOf(encoding: SmsEncoding, referenceBits: 8 | 16 = 8): { single: number; perPart: number } {
  const left = USER_DATA_OCTETS - CONCATENATION_HEADER_OCTETS[referenceBits]
  // gsm7: the header is padded with fill bits to a septet boundary, so whole septets remain.
  if (encoding === 'gsm7') return { single: (USER_DATA_OCTETS * 8) / 7, perPart: Math.floor((left * 8) / 7) }
  return { single: USER_DATA_OCTETS / 2, perPart: Math.floor(left / 2) }
}

/** The septet value that announces an extension-table character. */
export const GSM7_ESCAPE = 0x1b

/**
 * The basic table in code order 0x00–0x7F, 16 codes a line. 0x1B is the escape to the
 * extension table, not a character: it is left out of the maps below, so a text holding U+001B
 * as-is is not gsm7.
 */
export const GSM7_BASIC_TABLE =
  '@\u00a3$\u00a5\u00e8\u00e9\u00f9\u00ec\u00f2\u00c7\n\u00d8\u00f8\r\u00c5\u00e5' + // @ £ $ ¥ è é ù ì ò Ç LF Ø ø CR Å å
  '\u0394_\u03a6\u0393\u039b\u03a9\u03a0\u03a8\u03a3\u0398\u039e\u001b\u00c6\u00e6\u00df\u00c9' + // Δ _ Φ Γ Λ Ω Π Ψ Σ Θ Ξ ESC Æ æ ß É
  ' !"#\u00a4%&\'()*+,-./' + // ¤ at 0x24 where ASCII has $
  '0123456789:;<=>?' +
  '\u00a1ABCDEFGHIJKLMNO' + // ¡ at 0x40 where ASCII has @
  'PQRSTUVWXYZ\u00c4\u00d6\u00d1\u00dc\u00a7' + // Ä Ö Ñ Ü §
  '\u00bfabcdefghijklmno' + // ¿ at 0x60 where ASCII has `
  'pqrstuvwxyz\u00e4\u00f6\u00f1\u00fc\u00e0' // ä ö ñ ü à

/** The extension table's characters (sent as ESC + code): form feed ^ { } \ [ ~ ] | € */
export const GSM7_EXTENSION_TABLE: ReadonlyArray<readonly [string, number]> = [
  ['\f', 0x0a],
  ['^', 0x14],
  ['{', 0x28],
  ['}', 0x29],
  ['\\', 0x2f],
  ['[', 0x3c],
  ['~', 0x3d],
  [']', 0x3e],
  ['|', 0x40],
  ['\u20ac', 0x65],
]

/** Character → its basic-table code. */
export const GSM7_BASIC_CODES: ReadonlyMap<string, number> = new Map(
  [...GSM7_BASIC_TABLE].map((character, code): [string, number] => [character, code]).filter(([, code]) => code !== GSM7_ESCAPE)
)

/** Character → its extension-table code (the septet after ESC). */
export const GSM7_EXTENSION_CODES: ReadonlyMap<string, number> = new Map(GSM7_EXTENSION_TABLE)

function isGsm7Character(character: string): boolean {
  return GSM7_BASIC_CODES.has(character) || GSM7_EXTENSION_CODES.has(character)
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
  return GSM7_EXTENSION_CODES.has(character) ? 2 : 1
}

export interface TextParts {
  encoding: SmsEncoding
  /** septets for gsm7, UTF-16 code units for ucs2, of the whole text */
  units: number
  /** The text of each part, in order; joined they give the text back. */
  parts: string[]
}

/**
 * Splits a text into the parts it is sent as. `referenceBits` is the concatenation reference's
 * size: 16 leaves one septet (gsm7) or one character (ucs2) less room in each part than the
 * gateway's count, which uses 8.
 */
export function splitText(text: string, referenceBits: 8 | 16 = 8): TextParts {
  const encoding: SmsEncoding = isGsm7(text) ? 'gsm7' : 'ucs2'
  // Iterating a string yields code points, so a surrogate pair is one indivisible character.
  const characters = [...text]
  const units = characters.reduce((sum, character) => sum + unitsOf(character, encoding), 0)
  const capacity = capacityOf(encoding, referenceBits)

  if (units === 0) return { encoding, units, parts: [] }
  if (units <= capacity.single) return { encoding, units, parts: [text] }

  const parts: string[] = []
  let current = ''
  let currentUnits = 0
  for (const character of characters) {
    const size = unitsOf(character, encoding)
    if (currentUnits + size > capacity.perPart) {
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
  const { encoding, units, parts } = splitText(text)
  return { encoding, segments: parts.length, units }
}

/** Splits a text into the parts a phone sends; joining them gives the text back. */
export function splitIntoParts(text: string): string[] {
  return splitText(text).parts
}
