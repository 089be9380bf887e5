/*
 * The SMS PDU codec for modems in PDU mode (AT+CMGF=0): pure functions and two small stateful
 * helpers, no I/O. docs/modem-pdu.md says what is encoded and decoded, and the choices made.
 */
export { PduError } from './octets.js'
export type { Address } from './address.js'
export type { SmsTimestamp } from './timestamp.js'
export { encodeRelativeValidity, decodeRelativeValidity, MAX_VALIDITY_MINUTES } from './timestamp.js'
export type { Concatenation, DataCoding } from './user_data.js'
export { encodeSubmit, decodeSubmit, DEFAULT_VALIDITY_MINUTES, type SubmitOptions, type SubmitPart, type EncodedSubmit, type SmsSubmit } from './sms_submit.js'
export { decodeDeliver, encodeDeliver, type SmsDeliver, type DeliverFields } from './sms_deliver.js'
export {
  decodeStatusReport,
  encodeStatusReport,
  deliveryStatus,
  type SmsStatusReport,
  type DeliveryStatus,
  type DeliveryOutcome,
  type StatusReportFields,
} from './status_report.js'
export { decodePdu } from './decode_pdu.js'
export { Reassembly, REASSEMBLY_TIMEOUT_MS, type ReassembledSms } from './reassembly.js'
export { DeliveryTracker, sameRecipient, type TrackedDelivery, type TrackedSnapshot } from './delivery_tracker.js'
