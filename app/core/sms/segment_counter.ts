/*
 * SMS encoding and segment counting (GSM 7-bit default alphabet or UCS-2; 160/153 septets or
 * 70/67 UTF-16 units), as the API reports them and the dashboard's Send page shows them.
 *
 * The rules and the alphabet are written once, in agent/src/sms_parts.ts, because the phone
 * agent's PDU codec splits and encodes with them and the agent is shipped on its own
 * (build/agent/): counting here and sending there cannot disagree. That file imports nothing,
 * so the dashboard still bundles this one as it is (docs/modem-pdu.md, One alphabet).
 */
export { countSegments, isGsm7, splitIntoParts } from '../../../agent/src/sms_parts.js'
export type { SegmentCount, SmsEncoding } from '../../../agent/src/sms_parts.js'
