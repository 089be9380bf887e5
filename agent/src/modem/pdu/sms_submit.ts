import { splitText, type SmsEncoding } from '../../sms_parts.js'
import { encodeAddress, encodeServiceCentre, readAddress, readServiceCentre, type Address } from './address.js'
import { fromHex, OctetReader, PduError, toHex } from './octets.js'
import { decodeRelativeValidity, decodeTimestamp, encodeRelativeValidity, type SmsTimestamp } from './timestamp.js'
import { concatenationHeader, decodeDataCoding, decodeUserData, encodeUserData, type DataCoding, type DecodedUserData } from './user_data.js'

/** The validity period asked for when none is given: a day. */
export const DEFAULT_VALIDITY_MINUTES = 24 * 60

export interface SubmitOptions {
  /**
   * The concatenation reference of a text sent in several parts, the same in each of its parts
   * and different for the sender's next long text: the caller keeps the counter (the codec has
   * no state). Unused for a one-part text.
   */
  reference: number
  /** 8 (IEI 0x00, the default, what the gateway's segment count assumes) or 16 (IEI 0x08). */
  referenceBits?: 8 | 16
  /** TP-SRR: ask for a status report (default true). */
  statusReport?: boolean
  /** TP-VP, relative (default a day); null sends none, so the service centre's own applies. */
  validityMinutes?: number | null
}

export interface SubmitPart {
  /** The PDU for AT+CMGS in PDU mode, hex: `00` (the SIM's service centre), then the TPDU. */
  pdu: string
  /** The TPDU's length in octets, the number AT+CMGS=<length> takes (the `00` not counted). */
  length: number
}

export interface EncodedSubmit {
  encoding: SmsEncoding
  parts: SubmitPart[]
}

const MTI_SUBMIT = 0x01
const VPF_RELATIVE = 0x10
const SRR = 0x20
const UDHI = 0x40

/**
 * SMS-SUBMIT PDUs for a text (TS 23.040 clause 9.2.2.2), one a part, split and encoded as
 * agent/src/sms_parts.ts decides: as many parts, in the same encoding, as the gateway counted.
 * TP-MR is 0: the modem assigns the reference and answers it in `+CMGS: <mr>`.
 */
export function encodeSubmit(to: string, text: string, options: SubmitOptions): EncodedSubmit {
  const referenceBits = options.referenceBits ?? 8
  const maxReference = referenceBits === 16 ? 0xffff : 0xff
  if (!Number.isInteger(options.reference) || options.reference < 0 || options.reference > maxReference) {
    throw new PduError(`concatenation reference: an integer from 0 to ${maxReference}`)
  }
  const validity = options.validityMinutes === undefined ? DEFAULT_VALIDITY_MINUTES : options.validityMinutes
  const validityOctet = validity === null ? null : encodeRelativeValidity(validity)
  const address = encodeAddress(to)
  const { encoding, parts } = splitText(text, referenceBits)
  if (!parts.length) throw new PduError('text: empty, nothing to send')
  if (parts.length > 255) throw new PduError('text: more than 255 parts')

  return {
    encoding,
    parts: parts.map((part, index) => {
      const header =
        parts.length > 1 ? concatenationHeader({ reference: options.reference, referenceBits, total: parts.length, sequence: index + 1 }) : []
      const userData = encodeUserData(part, encoding, header)
      const firstOctet =
        MTI_SUBMIT | (validityOctet === null ? 0 : VPF_RELATIVE) | (options.statusReport === false ? 0 : SRR) | (header.length ? UDHI : 0)
      const tpdu = [
        firstOctet,
        0x00, // TP-MR
        ...address,
        0x00, // TP-PID: plain SMS
        encoding === 'ucs2' ? 0x08 : 0x00, // TP-DCS: no class, uncompressed
        ...(validityOctet === null ? [] : [validityOctet]),
        userData.length,
        ...userData.octets,
      ]
      return { pdu: toHex([...encodeServiceCentre(null), ...tpdu]), length: tpdu.length }
    }),
  }
}

export interface SmsSubmit {
  type: 'submit'
  serviceCentre: Address | null
  messageReference: number
  to: Address
  statusReport: boolean
  rejectDuplicates: boolean
  /** Relative validity in minutes, an absolute one as a time stamp, or null when none is set (or an enhanced format, not read). */
  validity: { minutes: number } | { until: SmsTimestamp | null } | null
  coding: DataCoding
  userData: DecodedUserData
}

/**
 * An SMS-SUBMIT read back: what a modem lists from its outbox, and what the tests read of the
 * PDUs encodeSubmit writes.
 */
export function decodeSubmit(hex: string): SmsSubmit {
  const reader = new OctetReader(fromHex(hex))
  const serviceCentre = readServiceCentre(reader)
  const firstOctet = reader.octet('first octet')
  if ((firstOctet & 0x03) !== MTI_SUBMIT) throw new PduError('PDU: not an SMS-SUBMIT')
  const messageReference = reader.octet('TP-MR')
  const to = readAddress(reader, 'TP-DA')
  reader.octet('TP-PID')
  const coding = decodeDataCoding(reader.octet('TP-DCS'))
  const validityFormat = (firstOctet >> 3) & 0x03
  let validity: SmsSubmit['validity'] = null
  if (validityFormat === 2) validity = { minutes: decodeRelativeValidity(reader.octet('TP-VP')) }
  else if (validityFormat === 3) validity = { until: decodeTimestamp(reader.take(7, 'TP-VP')) }
  else if (validityFormat === 1) reader.take(7, 'TP-VP')
  const length = reader.octet('TP-UDL')
  return {
    type: 'submit',
    serviceCentre,
    messageReference,
    to,
    statusReport: (firstOctet & SRR) !== 0,
    rejectDuplicates: (firstOctet & 0x04) !== 0,
    validity,
    coding,
    userData: decodeUserData(reader.takeUpTo(140), length, (firstOctet & UDHI) !== 0, coding),
  }
}
