import { readServiceCentre } from './address.js'
import { fromHex, OctetReader, PduError } from './octets.js'
import { decodeDeliver, type SmsDeliver } from './sms_deliver.js'
import { decodeSubmit, type SmsSubmit } from './sms_submit.js'
import { decodeStatusReport, type SmsStatusReport } from './status_report.js'

/**
 * A PDU a modem gives (`+CMT:`, `+CDS:`, `+CMGR:`, `+CMGL:`), its service centre prefix
 * first, read by its message type indicator: from the network an SMS-DELIVER or a status
 * report; from the modem's own store also the SMS-SUBMITs it keeps.
 */
export function decodePdu(hex: string): SmsDeliver | SmsStatusReport | SmsSubmit {
  const reader = new OctetReader(fromHex(hex))
  readServiceCentre(reader)
  const type = reader.octet('first octet') & 0x03
  if (type === 0x00) return decodeDeliver(hex)
  if (type === 0x01) return decodeSubmit(hex)
  if (type === 0x02) return decodeStatusReport(hex)
  throw new PduError('PDU: reserved message type')
}
