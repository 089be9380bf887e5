import { encodeAddress, encodeServiceCentre, readAddress, readServiceCentre, type Address } from './address.js'
import { fromHex, OctetReader, PduError, toHex } from './octets.js'
import { decodeTimestamp, encodeTimestamp, type SmsTimestamp } from './timestamp.js'

/**
 * What a TP-ST value means for the message (TS 23.040 clause 9.2.3.15), by its bits 6 and 5:
 * - `delivered`: the transaction is complete (0x00–0x1F);
 * - `pending`: a temporary error, the service centre still tries (0x20–0x3F): not final,
 *   another report follows;
 * - `failed`: a permanent error (0x40–0x5F), or a temporary one the service centre no longer
 *   retries (0x60–0x7F). The values from 0x80, reserved, are read as failed too: no later
 *   report can be counted on.
 */
export type DeliveryOutcome = 'delivered' | 'pending' | 'failed'

export interface DeliveryStatus {
  outcome: DeliveryOutcome
  /** A short code for the report: a name for the values TS 23.040 names, `DELIVERY_FAILED_<hex>` / `DELIVERY_PENDING_<hex>` / `DELIVERED_<hex>` for the others. */
  code: string
  /** TP-ST as received. */
  status: number
}

const NAMED: Record<number, string> = {
  0x00: 'DELIVERED',
  0x01: 'FORWARDED_UNCONFIRMED',
  0x02: 'REPLACED',
  0x20: 'CONGESTION',
  0x21: 'RECIPIENT_BUSY',
  0x22: 'NO_RESPONSE',
  0x23: 'SERVICE_REJECTED',
  0x24: 'QOS_NOT_AVAILABLE',
  0x25: 'RECIPIENT_ERROR',
  0x40: 'REMOTE_PROCEDURE_ERROR',
  0x41: 'INCOMPATIBLE_DESTINATION',
  0x42: 'REJECTED_BY_RECIPIENT',
  0x43: 'NOT_OBTAINABLE',
  0x44: 'QOS_NOT_AVAILABLE',
  0x45: 'NO_INTERWORKING',
  0x46: 'VALIDITY_PERIOD_EXPIRED',
  0x47: 'DELETED_BY_SENDER',
  0x48: 'DELETED_BY_SERVICE_CENTRE',
  0x49: 'MESSAGE_DOES_NOT_EXIST',
  0x60: 'CONGESTION',
  0x61: 'RECIPIENT_BUSY',
  0x62: 'NO_RESPONSE',
  0x63: 'SERVICE_REJECTED',
  0x64: 'QOS_NOT_AVAILABLE',
  0x65: 'RECIPIENT_ERROR',
}

export function deliveryStatus(status: number): DeliveryStatus {
  const outcome: DeliveryOutcome = status >= 0x80 ? 'failed' : status < 0x20 ? 'delivered' : status < 0x40 ? 'pending' : 'failed'
  const prefix = outcome === 'delivered' ? 'DELIVERED' : outcome === 'pending' ? 'DELIVERY_PENDING' : 'DELIVERY_FAILED'
  return { outcome, code: NAMED[status] ?? `${prefix}_${status.toString(16).toUpperCase().padStart(2, '0')}`, status }
}

/** A status report, as `+CDS:` gives it in PDU mode. */
export interface SmsStatusReport {
  type: 'status-report'
  serviceCentre: Address | null
  /** TP-MR of the SMS-SUBMIT it reports on: the number `+CMGS:` answered. */
  messageReference: number
  recipient: Address
  /** TP-SCTS: when the service centre took the SMS. */
  sentAt: SmsTimestamp | null
  /** TP-DT: when it was delivered, or when the service centre gave up or wrote this report. */
  dischargedAt: SmsTimestamp | null
  status: DeliveryStatus
}

const MTI_STATUS_REPORT = 0x02

/**
 * An SMS-STATUS-REPORT (TS 23.040 clause 9.2.2.3). What may follow TP-ST (parameter
 * indicator, protocol, coding, user data) is not read: no outcome depends on it.
 */
export function decodeStatusReport(hex: string): SmsStatusReport {
  const reader = new OctetReader(fromHex(hex))
  const serviceCentre = readServiceCentre(reader)
  const firstOctet = reader.octet('first octet')
  if ((firstOctet & 0x03) !== MTI_STATUS_REPORT) throw new PduError('PDU: not an SMS-STATUS-REPORT')
  const messageReference = reader.octet('TP-MR')
  const recipient = readAddress(reader, 'TP-RA')
  const sentAt = decodeTimestamp(reader.take(7, 'TP-SCTS'))
  const dischargedAt = decodeTimestamp(reader.take(7, 'TP-DT'))
  const status = deliveryStatus(reader.octet('TP-ST'))
  return { type: 'status-report', serviceCentre, messageReference, recipient, sentAt, dischargedAt, status }
}

export interface StatusReportFields {
  messageReference: number
  recipient: string
  sentAt: Date
  dischargedAt: Date
  status: number
  offsetMinutes?: number
  serviceCentre?: string | null
}

/** A status report written, the way a service centre sends one: for a simulated modem and for the tests. */
export function encodeStatusReport(fields: StatusReportFields): string {
  const tpdu = [
    MTI_STATUS_REPORT,
    fields.messageReference & 0xff,
    ...encodeAddress(fields.recipient),
    ...encodeTimestamp(fields.sentAt, fields.offsetMinutes ?? 0),
    ...encodeTimestamp(fields.dischargedAt, fields.offsetMinutes ?? 0),
    fields.status & 0xff,
  ]
  return toHex([...encodeServiceCentre(fields.serviceCentre ?? null), ...tpdu])
}
