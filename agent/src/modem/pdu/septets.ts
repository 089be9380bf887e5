import { GSM7_BASIC_CODES, GSM7_BASIC_TABLE, GSM7_ESCAPE, GSM7_EXTENSION_CODES, GSM7_EXTENSION_TABLE } from '../../sms_parts.js'
import { PduError } from './octets.js'

const EXTENSION_CHARACTERS = new Map(GSM7_EXTENSION_TABLE.map(([character, code]) => [code, character]))

/** A gsm7 text as septet values: ESC + code for an extension-table character. */
export function toSeptets(text: string): number[] {
  const septets: number[] = []
  for (const character of text) {
    const basic = GSM7_BASIC_CODES.get(character)
    if (basic !== undefined) {
      septets.push(basic)
      continue
    }
    const extension = GSM7_EXTENSION_CODES.get(character)
    if (extension === undefined) throw new PduError('gsm7 text: a character outside the GSM 7-bit alphabet')
    septets.push(GSM7_ESCAPE, extension)
  }
  return septets
}

/**
 * Septet values back to text (TS 23.038 clause 6.2.1.1): an escaped code missing from the
 * extension table reads as its basic-table character, and ESC ESC (the escape to a further
 * table) as a space.
 */
export function fromSeptets(septets: ArrayLike<number>): string {
  let text = ''
  for (let index = 0; index < septets.length; index++) {
    const septet = septets[index]
    if (septet !== GSM7_ESCAPE) {
      text += GSM7_BASIC_TABLE[septet]
      continue
    }
    if (index + 1 >= septets.length) break
    const code = septets[++index]
    text += code === GSM7_ESCAPE ? ' ' : (EXTENSION_CHARACTERS.get(code) ?? GSM7_BASIC_TABLE[code])
  }
  return text
}

/**
 * Packs septets after `startSeptet` septets' worth of room (TS 23.038 clause 6.1.2.1.1: the
 * first septet in the low bits of the first octet). The room before holds a user data header,
 * which the caller writes; the bits between its end and `startSeptet` are the fill bits.
 */
export function packSeptets(septets: ArrayLike<number>, startSeptet = 0): Uint8Array {
  const totalBits = (startSeptet + septets.length) * 7
  const octets = new Uint8Array(Math.ceil(totalBits / 8))
  for (let index = 0; index < septets.length; index++) {
    const bit = (startSeptet + index) * 7
    const at = bit >> 3
    const shift = bit & 7
    const value = septets[index] & 0x7f
    octets[at] |= (value << shift) & 0xff
    if (shift > 1) octets[at + 1] |= value >> (8 - shift)
  }
  return octets
}

/** `count` septets read from `octets`, starting `startSeptet` septets in. */
export function unpackSeptets(octets: ArrayLike<number>, count: number, startSeptet = 0): number[] {
  const septets: number[] = []
  for (let index = 0; index < count; index++) {
    const bit = (startSeptet + index) * 7
    const at = bit >> 3
    if (at >= octets.length) break
    const shift = bit & 7
    const next = at + 1 < octets.length ? octets[at + 1] : 0
    septets.push(((octets[at] >> shift) | (next << (8 - shift))) & 0x7f)
  }
  return septets
}
