import { parse, Submit } from 'node-pdu'

/*
 * node-pdu (MIT, a devDependency) as an independent reader of the SMS-SUBMIT PDUs our codec
 * writes. It reads a relative TP-VP above 143 wrongly (12 days instead of 12 hours for
 * 144-167, a day short for 168-196, four weeks short for 197-255), so that octet is read from
 * its place in the PDU and turned into minutes by the table of TS 23.040 clause 9.2.3.12.1.
 */

/** The texts a gateway sends: one SMS, long GSM 7-bit with extension characters, long UCS-2, emoji. */
export const WHOLE_TEXTS: Array<[string, string]> = [
  ['one SMS', 'Your code is 1234'],
  ['long GSM 7-bit with extension characters', 'Price: 5€ [promo] {code} ~50% off^ |today| \\ see back. '.repeat(4) + 'End'],
  ['long UCS-2', 'Ünïcödé ✓ Привет мир, this needs UCS-2. '.repeat(4)],
  ['emoji across parts', '😀 Good morning 🌍! '.repeat(10) + '👍'],
]

/** The octet after TP-DCS in an SMS-SUBMIT (`00` service centre prefix, first octet, TP-MR, TP-DA, TP-PID, TP-DCS). */
export function validityOctet(pdu: string): number {
  const digits = Number.parseInt(pdu.slice(6, 8), 16)
  const at = 2 + 2 + 2 + 2 + 2 + Math.ceil(digits / 2) * 2 + 2 + 2
  return Number.parseInt(pdu.slice(at, at + 2), 16)
}

/** TS 23.040 clause 9.2.3.12.1, relative TP-VP: the period in minutes. */
export function specValidityMinutes(octet: number): number {
  if (octet <= 143) return (octet + 1) * 5
  if (octet <= 167) return 12 * 60 + (octet - 143) * 30
  if (octet <= 196) return (octet - 166) * 24 * 60
  return (octet - 192) * 7 * 24 * 60
}

/** Reads one of our SUBMIT parts with node-pdu. */
export function oracleSubmit(pdu: string) {
  const parsed = parse(pdu)
  if (!(parsed instanceof Submit)) throw new Error('node-pdu does not read an SMS-SUBMIT')
  const [part] = parsed.data.parts
  return {
    to: parsed.address.phone,
    toType: parsed.address.type.getValue(),
    dcs: parsed.dataCodingScheme.getValue(),
    srr: parsed.type.statusReportRequest,
    vpf: parsed.type.validityPeriodFormat,
    udhi: parsed.type.userDataHeader,
    mr: parsed.messageReference,
    concatenation: part.header ? { iei: part.header.getType(), reference: part.header.getPointer(), total: part.header.getSegments(), sequence: part.header.getCurrent() } : null,
    text: parsed.data.getText(),
  }
}
