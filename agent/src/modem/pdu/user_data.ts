import { PduError, toHex } from './octets.js'
import { fromSeptets, packSeptets, toSeptets, unpackSeptets } from './septets.js'

/** What TP-DCS says about the user data (TS 23.038 clause 4). */
export interface DataCoding {
  alphabet: 'gsm7' | '8bit' | 'ucs2'
  /** Compressed user data (TS 23.042): not decompressed here, handed on as binary. */
  compressed: boolean
  /** 0 (flash), 1 (mobile equipment), 2 (SIM), 3 (terminal equipment), or null when none is given. */
  messageClass: 0 | 1 | 2 | 3 | null
}

export function decodeDataCoding(dcs: number): DataCoding {
  const group = dcs >> 4
  const classOf = (): DataCoding['messageClass'] => (dcs & 0x03) as 0 | 1 | 2 | 3
  // General data coding (00xx), and the same with "delete after reading" (01xx).
  if (group <= 0x7) {
    const alphabetBits = (dcs >> 2) & 0x03
    return {
      alphabet: alphabetBits === 1 ? '8bit' : alphabetBits === 2 ? 'ucs2' : 'gsm7',
      compressed: (dcs & 0x20) !== 0,
      messageClass: dcs & 0x10 ? classOf() : null,
    }
  }
  // Message waiting indication: 1100 and 1101 in the default alphabet, 1110 in UCS-2.
  if (group === 0xe) return { alphabet: 'ucs2', compressed: false, messageClass: null }
  // Data coding / message class: bit 2 chooses 8-bit data.
  if (group === 0xf) return { alphabet: dcs & 0x04 ? '8bit' : 'gsm7', compressed: false, messageClass: classOf() }
  // 1100, 1101, and the reserved groups 1000–1011, which are read as the default alphabet.
  return { alphabet: 'gsm7', compressed: false, messageClass: null }
}

/** A concatenated SMS's part (TS 23.040 clauses 9.2.3.24.1 and 9.2.3.24.8). */
export interface Concatenation {
  reference: number
  /** 8 (IEI 0x00) or 16 (IEI 0x08). */
  referenceBits: 8 | 16
  total: number
  /** 1-based. */
  sequence: number
}

export interface UserDataHeader {
  concatenation: Concatenation | null
  /** The identifiers of the other information elements, skipped. */
  skipped: number[]
}

const IEI_CONCATENATION_8 = 0x00
const IEI_CONCATENATION_16 = 0x08

/**
 * The header's information elements. A concatenation element with a total or sequence of 0, or
 * a sequence past the total, is ignored as TS 23.040 asks; an element running past the header
 * ends the reading.
 */
export function parseHeader(header: Uint8Array): UserDataHeader {
  const result: UserDataHeader = { concatenation: null, skipped: [] }
  let at = 0
  while (at + 2 <= header.length) {
    const iei = header[at]
    const length = header[at + 1]
    const data = header.subarray(at + 2, at + 2 + length)
    at += 2 + length
    if (data.length < length) break
    const concatenation =
      iei === IEI_CONCATENATION_8 && length === 3
        ? { reference: data[0], referenceBits: 8 as const, total: data[1], sequence: data[2] }
        : iei === IEI_CONCATENATION_16 && length === 4
          ? { reference: (data[0] << 8) | data[1], referenceBits: 16 as const, total: data[2], sequence: data[3] }
          : null
    if (!concatenation) result.skipped.push(iei)
    else if (concatenation.total > 0 && concatenation.sequence > 0 && concatenation.sequence <= concatenation.total) result.concatenation = concatenation
  }
  return result
}

/** The header of a concatenated SMS's part, its length octet (UDHL) first. */
export function concatenationHeader(part: Concatenation): number[] {
  if (part.referenceBits === 16) {
    return [6, IEI_CONCATENATION_16, 4, (part.reference >> 8) & 0xff, part.reference & 0xff, part.total, part.sequence]
  }
  return [5, IEI_CONCATENATION_8, 3, part.reference & 0xff, part.total, part.sequence]
}

/** Septets a header takes, fill bits included (TS 23.040 clause 9.2.3.24: the text starts on a septet boundary). */
function headerSeptets(headerOctets: number): number {
  return Math.ceil((headerOctets * 8) / 7)
}

export interface EncodedUserData {
  /** TP-UDL: septets for gsm7 (the header's counted in), octets otherwise. */
  length: number
  octets: number[]
}

/** A part's text as user data, after its header when it has one (header: UDHL first). */
export function encodeUserData(text: string, alphabet: 'gsm7' | 'ucs2', header: number[] = []): EncodedUserData {
  if (alphabet === 'gsm7') {
    const start = header.length ? headerSeptets(header.length) : 0
    const septets = toSeptets(text)
    const packed = packSeptets(septets, start)
    packed.set(header, 0)
    return check({ length: start + septets.length, octets: [...packed] })
  }
  const octets = [...header]
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index)
    octets.push(unit >> 8, unit & 0xff)
  }
  return check({ length: octets.length, octets })
}

function check(data: EncodedUserData): EncodedUserData {
  if (data.octets.length > 140) throw new PduError('user data: more than 140 octets')
  return data
}

export interface DecodedUserData {
  header: UserDataHeader | null
  /** The text; empty for binary data. */
  text: string
  /** 8-bit data and compressed text are not read as text: their octets are here as hex, and `binary` is set. */
  binary: boolean
  dataHex: string | null
}

/**
 * User data as TP-UDL, TP-UDHI and TP-DCS describe it. A length longer than the octets there
 * are is read as far as they go (some modems count the header twice), never past them.
 */
export function decodeUserData(octets: Uint8Array, length: number, hasHeader: boolean, coding: DataCoding): DecodedUserData {
  let header: UserDataHeader | null = null
  let headerOctets = 0
  if (hasHeader && octets.length > 0) {
    headerOctets = Math.min(1 + octets[0], octets.length)
    header = parseHeader(octets.subarray(1, headerOctets))
  }
  if (coding.alphabet === 'gsm7' && !coding.compressed) {
    const start = hasHeader ? headerSeptets(headerOctets) : 0
    const available = Math.floor((octets.length * 8) / 7) - start
    const count = Math.max(0, Math.min(length - start, available))
    return { header, text: fromSeptets(unpackSeptets(octets, count, start)), binary: false, dataHex: null }
  }
  const body = octets.subarray(headerOctets, Math.max(headerOctets, Math.min(length, octets.length)))
  if (coding.alphabet === 'ucs2' && !coding.compressed) {
    let text = ''
    for (let index = 0; index + 1 < body.length; index += 2) text += String.fromCharCode((body[index] << 8) | body[index + 1])
    return { header, text, binary: false, dataHex: null }
  }
  return { header, text: '', binary: true, dataHex: toHex(body) }
}
