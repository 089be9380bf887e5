import { fromSeptets, packSeptets, unpackSeptets } from './septets.js'
import { OctetReader, PduError } from './octets.js'

/**
 * An address field (TS 23.040 clause 9.1.2.5). `kind` follows the type of number:
 * international numbers read with a leading `+`, alphanumeric senders as text (packed GSM 7-bit),
 * anything else as the digits it carries.
 */
export interface Address {
  value: string
  kind: 'international' | 'national' | 'unknown' | 'alphanumeric' | 'other'
  /** Type of number (3 bits) and numbering plan (4 bits) as received. */
  ton: number
  npi: number
}

const TON_UNKNOWN = 0
const TON_INTERNATIONAL = 1
const TON_NATIONAL = 2
const TON_ALPHANUMERIC = 5
const NPI_ISDN = 1

/** Semi-octet values 0xA–0xE; 0xF pads an odd count (TS 23.040 clause 9.1.2.3). */
const DIGIT_CHARACTERS = '0123456789*#abc'

/** The longest address value: 10 octets, 20 digits. */
const MAX_DIGITS = 20

/** Swapped semi-octets: the first digit in the low nibble, 0xF padding an odd count. */
export function encodeSemiOctets(digits: string): number[] {
  const octets: number[] = []
  for (let index = 0; index < digits.length; index += 2) {
    const low = DIGIT_CHARACTERS.indexOf(digits[index])
    const high = index + 1 < digits.length ? DIGIT_CHARACTERS.indexOf(digits[index + 1]) : 0xf
    octets.push((high << 4) | low)
  }
  return octets
}

function decodeSemiOctets(octets: Uint8Array, count: number): string {
  let digits = ''
  for (let index = 0; index < count; index++) {
    const octet = octets[index >> 1]
    const nibble = index % 2 === 0 ? octet & 0x0f : octet >> 4
    if (nibble === 0xf) break
    digits += DIGIT_CHARACTERS[nibble]
  }
  return digits
}

function kindOf(ton: number): Address['kind'] {
  if (ton === TON_INTERNATIONAL) return 'international'
  if (ton === TON_NATIONAL) return 'national'
  if (ton === TON_UNKNOWN) return 'unknown'
  if (ton === TON_ALPHANUMERIC) return 'alphanumeric'
  return 'other'
}

/**
 * A destination number: `+` and digits is international (type 0x91), digits alone go as typed
 * with type of number "unknown" (0x81), which is how a number dialled with its trunk prefix is
 * sent; the network reads it as its own national numbering.
 */
export function encodeAddress(number: string): number[] {
  const international = number.startsWith('+')
  const digits = international ? number.slice(1) : number
  if (!/^\d+$/.test(digits)) throw new PduError('destination address: only digits, with an optional leading +')
  if (digits.length > MAX_DIGITS) throw new PduError(`destination address: more than ${MAX_DIGITS} digits`)
  const type = 0x80 | ((international ? TON_INTERNATIONAL : TON_UNKNOWN) << 4) | NPI_ISDN
  return [digits.length, type, ...encodeSemiOctets(digits)]
}

/** An address field: its length counts semi-octets of the value, not octets. */
export function readAddress(reader: OctetReader, field: string): Address {
  const length = reader.octet(field)
  const type = reader.octet(field)
  const ton = (type >> 4) & 0x07
  const npi = type & 0x0f
  if (length > MAX_DIGITS) throw new PduError(`PDU: ${field} longer than ${MAX_DIGITS} semi-octets`)
  const octets = reader.take(Math.ceil(length / 2), field)
  if (ton === TON_ALPHANUMERIC) {
    return { value: fromSeptets(unpackSeptets(octets, Math.floor((length * 4) / 7))), kind: 'alphanumeric', ton, npi }
  }
  const digits = decodeSemiOctets(octets, length)
  return { value: ton === TON_INTERNATIONAL ? `+${digits}` : digits, kind: kindOf(ton), ton, npi }
}

/** An alphanumeric address field (a sender name such as a shop's), for PDUs built in tests. */
export function encodeAlphanumericAddress(septets: number[]): number[] {
  const octets = packSeptets(septets)
  return [Math.ceil((septets.length * 7) / 4), 0x80 | (TON_ALPHANUMERIC << 4), ...octets]
}

/**
 * The service centre address before the TPDU (TS 27.005 clause 3.1, <pdu> in PDU mode): its
 * length counts octets, type included; 0 means none, so the modem uses the SIM's.
 */
export function readServiceCentre(reader: OctetReader): Address | null {
  const length = reader.octet('SMSC address')
  if (length === 0) return null
  const type = reader.octet('SMSC address')
  const octets = reader.take(length - 1, 'SMSC address')
  const ton = (type >> 4) & 0x07
  const digits = decodeSemiOctets(octets, octets.length * 2)
  return { value: ton === TON_INTERNATIONAL ? `+${digits}` : digits, kind: kindOf(ton), ton, npi: type & 0x0f }
}

/** The same field written: none (`00`), or a number as encodeAddress takes it. */
export function encodeServiceCentre(number: string | null): number[] {
  if (number === null) return [0]
  const [, type, ...octets] = encodeAddress(number)
  return [octets.length + 1, type, ...octets]
}
