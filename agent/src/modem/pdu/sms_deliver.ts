import { isGsm7 } from '../../sms_parts.js'
import { encodeAddress, encodeAlphanumericAddress, encodeServiceCentre, readAddress, readServiceCentre, type Address } from './address.js'
import { fromHex, OctetReader, PduError, toHex } from './octets.js'
import { toSeptets } from './septets.js'
import { decodeTimestamp, encodeTimestamp, type SmsTimestamp } from './timestamp.js'
import { concatenationHeader, decodeDataCoding, decodeUserData, encodeUserData, type Concatenation, type DataCoding } from './user_data.js'

/** A received SMS (or one part of a long one), as `+CMT:`, `+CMGR:` and `+CMGL:` give it in PDU mode. */
export interface SmsDeliver {
  type: 'deliver'
  serviceCentre: Address | null
  from: Address
  /** TP-PID as received (0: a plain SMS). */
  protocolId: number
  coding: DataCoding
  /** TP-SCTS: when the service centre took the SMS; null when the stamp is no date. */
  sentAt: SmsTimestamp | null
  /** TP-SRI: the sender asked for a status report. */
  statusReportIndication: boolean
  /** This part's place in a concatenated SMS, or null for a whole SMS. */
  concatenation: Concatenation | null
  /** Identifiers of the user data header's other elements, skipped (a language shift among them leaves the text read in the default alphabet). */
  skippedElements: number[]
  /** The text; empty for binary data. */
  text: string
  /** 8-bit data or compressed text: not text; its octets as hex in `dataHex`. */
  binary: boolean
  dataHex: string | null
}

const MTI_MASK = 0x03
const MTI_DELIVER = 0x00
const SRI = 0x20
const UDHI = 0x40

/** An SMS-DELIVER (TS 23.040 clause 9.2.2.1), its service centre prefix first. */
export function decodeDeliver(hex: string): SmsDeliver {
  const reader = new OctetReader(fromHex(hex))
  const serviceCentre = readServiceCentre(reader)
  const firstOctet = reader.octet('first octet')
  if ((firstOctet & MTI_MASK) !== MTI_DELIVER) throw new PduError('PDU: not an SMS-DELIVER')
  const from = readAddress(reader, 'TP-OA')
  const protocolId = reader.octet('TP-PID')
  const coding = decodeDataCoding(reader.octet('TP-DCS'))
  const sentAt = decodeTimestamp(reader.take(7, 'TP-SCTS'))
  const length = reader.octet('TP-UDL')
  const userData = decodeUserData(reader.takeUpTo(140), length, (firstOctet & UDHI) !== 0, coding)
  return {
    type: 'deliver',
    serviceCentre,
    from,
    protocolId,
    coding,
    sentAt,
    statusReportIndication: (firstOctet & SRI) !== 0,
    concatenation: userData.header?.concatenation ?? null,
    skippedElements: userData.header?.skipped ?? [],
    text: userData.text,
    binary: userData.binary,
    dataHex: userData.dataHex,
  }
}

export interface DeliverFields {
  /** `+` and digits, digits, or a sender name (sent as an alphanumeric address). */
  from: string
  text: string
  sentAt: Date
  /** The time stamp's offset from UTC in minutes (default 0). */
  offsetMinutes?: number
  serviceCentre?: string | null
  concatenation?: Concatenation
}

/**
 * An SMS-DELIVER written, the way a service centre sends one: for a simulated modem and for
 * the tests' round trips. Text in the default alphabet when it fits, UCS-2 otherwise.
 */
export function encodeDeliver(fields: DeliverFields): string {
  const alphabet = isGsm7(fields.text) ? 'gsm7' : 'ucs2'
  const header = fields.concatenation ? concatenationHeader(fields.concatenation) : []
  const userData = encodeUserData(fields.text, alphabet, header)
  const from = /^\+?\d+$/.test(fields.from) ? encodeAddress(fields.from) : encodeAlphanumericAddress(toSeptets(fields.from))
  const tpdu = [
    MTI_DELIVER | (header.length ? UDHI : 0),
    ...from,
    0x00,
    alphabet === 'ucs2' ? 0x08 : 0x00,
    ...encodeTimestamp(fields.sentAt, fields.offsetMinutes ?? 0),
    userData.length,
    ...userData.octets,
  ]
  return toHex([...encodeServiceCentre(fields.serviceCentre ?? null), ...tpdu])
}
