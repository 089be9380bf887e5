import { PduError } from './octets.js'

/** A service centre time stamp (TS 23.040 clause 9.2.3.11): the instant, and the sender's offset from UTC. */
export interface SmsTimestamp {
  /** The instant in UTC. */
  at: Date
  /** The local time's offset from UTC in minutes (quarter hours in the PDU), east positive. */
  offsetMinutes: number
}

/** Two decimal digits, swapped (the first in the low nibble); null for a nibble above 9. */
function swappedDigits(octet: number): number | null {
  const first = octet & 0x0f
  const second = octet >> 4
  return first > 9 || second > 9 ? null : first * 10 + second
}

/**
 * Seven octets: year (2000–2099), month, day, hour, minute, second, time zone. In the time
 * zone octet, bit 3 is the sign and the rest two swapped digits counting quarter hours.
 * A stamp that is no date (a digit above 9, month 13...) gives null: the message is still read.
 */
export function decodeTimestamp(octets: Uint8Array): SmsTimestamp | null {
  const fields = [...octets.subarray(0, 6)].map(swappedDigits)
  if (fields.some((field) => field === null)) return null
  const [year, month, day, hour, minute, second] = fields as number[]
  const zone = octets[6]
  const quarters = swappedDigits(zone & 0xf7)
  if (quarters === null) return null
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null
  const offsetMinutes = (zone & 0x08 ? -1 : 1) * quarters * 15
  const local = Date.UTC(2000 + year, month - 1, day, hour, minute, second)
  return { at: new Date(local - offsetMinutes * 60_000), offsetMinutes }
}

/** The same seven octets for an instant shown at `offsetMinutes` from UTC (a multiple of 15). */
export function encodeTimestamp(at: Date, offsetMinutes = 0): number[] {
  if (offsetMinutes % 15 !== 0 || Math.abs(offsetMinutes) > 79 * 15) throw new PduError('time stamp: the offset must be whole quarter hours, at most 79')
  const local = new Date(at.getTime() + offsetMinutes * 60_000)
  const swap = (value: number) => ((value % 10) << 4) | Math.floor(value / 10)
  const year = local.getUTCFullYear() - 2000
  if (year < 0 || year > 99) throw new PduError('time stamp: the year must be 2000 to 2099')
  const quarters = Math.abs(offsetMinutes) / 15
  return [
    swap(year),
    swap(local.getUTCMonth() + 1),
    swap(local.getUTCDate()),
    swap(local.getUTCHours()),
    swap(local.getUTCMinutes()),
    swap(local.getUTCSeconds()),
    swap(quarters) | (offsetMinutes < 0 ? 0x08 : 0),
  ]
}

const HOUR = 60
const DAY = 24 * HOUR
const WEEK = 7 * DAY

/** The longest relative validity period: 63 weeks. */
export const MAX_VALIDITY_MINUTES = 63 * WEEK

/**
 * The relative validity period octet (TS 23.040 clause 9.2.3.12.1) for at least `minutes`: the
 * steps are 5 minutes up to 12 hours, 30 minutes up to 24 hours, a day up to 30 days, then a
 * week up to 63 weeks; a period between two steps takes the longer one.
 */
export function encodeRelativeValidity(minutes: number): number {
  if (!Number.isFinite(minutes) || minutes <= 0 || minutes > MAX_VALIDITY_MINUTES) {
    throw new PduError(`validity period: between 1 minute and ${MAX_VALIDITY_MINUTES} minutes (63 weeks)`)
  }
  if (minutes <= 12 * HOUR) return Math.ceil(minutes / 5) - 1
  if (minutes <= DAY) return 143 + Math.ceil((minutes - 12 * HOUR) / 30)
  if (minutes <= 30 * DAY) return 166 + Math.ceil(minutes / DAY)
  return 192 + Math.max(5, Math.ceil(minutes / WEEK))
}

/** The period an octet stands for, in minutes. */
export function decodeRelativeValidity(octet: number): number {
  if (octet <= 143) return (octet + 1) * 5
  if (octet <= 167) return 12 * HOUR + (octet - 143) * 30
  if (octet <= 196) return (octet - 166) * DAY
  return (octet - 192) * WEEK
}
