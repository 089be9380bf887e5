import { createHmac } from 'node:crypto'

/**
 * What the SMSGate Android app ("SMS Gateway for Android", app 1.68) puts on the wire to its
 * private server, written once for the simulated phone and the tests' fake app
 * (docs/smsgate-app-protocol.md). No gateway code: the app only knows what it is sent.
 */

/** The app's User-Agent; the gateway shows the version on the phone's card. */
export const APP_VERSION = '1.68.0'
export const APP_USER_AGENT = `me.capcom.smsgateway/${APP_VERSION}`

/** A message's state in the app (§2.5). */
export type AppState = 'Pending' | 'Processed' | 'Sent' | 'Delivered' | 'Failed' | 'Cancelled'

/** A message as `GET /message` lists it; only the fields the app reads. */
export interface ListedMessage {
  id: string
  message?: string
  textMessage?: { text: string }
  phoneNumbers: string[]
  simNumber?: number | null
  withDeliveryReport?: boolean
  state?: string
}

/** One of the phone's SIMs as `POST`/`PATCH /device` carries it (masked, §2.1). */
export interface SimCard {
  slotIndex: number
  simNumber: number
  phoneNumber?: string
  carrierName?: string
}

/**
 * The app's failure texts (§2.5): a radio result names its `RESULT_…` constant, an exception
 * while sending, a message-level problem, or an expired message.
 */
export const FAILURE_TEXTS = {
  generic: 'Send result: RESULT_ERROR_GENERIC_FAILURE (Generic failure cause)',
  noService: 'Send result: RESULT_ERROR_NO_SERVICE (Failed because service is currently unavailable)',
  radioOff: 'Send result: RESULT_ERROR_RADIO_OFF (Failed because radio was explicitly turned off)',
  noSim: (simNumber: number) => `SIM ${simNumber} not found`,
} as const

/**
 * The app's date format: milliseconds and the phone's own offset, e.g.
 * `2026-08-01T18:49:17.357+07:00` (§1). `offsetMinutes` is the phone's zone.
 */
export function appDate(at: number | Date = Date.now(), offsetMinutes = 7 * 60): string {
  const ms = typeof at === 'number' ? at : at.getTime()
  const shifted = new Date(ms + offsetMinutes * 60_000)
  const sign = offsetMinutes < 0 ? '-' : '+'
  const abs = Math.abs(offsetMinutes)
  return `${shifted.toISOString().slice(0, 23)}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
}

/**
 * The JSON text the app's Gson writes: `=`, `<`, `>`, `&` and `'` escaped as `\u003d` and so on,
 * so a server that re-serialises the body instead of reading its bytes gets another signature.
 */
export function gsonJson(value: unknown): string {
  return JSON.stringify(value).replace(/[=<>&']/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** `X-Signature` (§4.3): lower-case hex HMAC-SHA256 keyed with the key's UTF-8 bytes, over the body then the timestamp. */
export function webhookSignature(key: string, body: string, timestamp: string): string {
  return createHmac('sha256', Buffer.from(key, 'utf8')).update(Buffer.from(body, 'utf8')).update(timestamp).digest('hex')
}

/** How the app masks what it tells its server of a SIM (`GatewayService.redact`): all but the last 4 characters. */
export function redact(value: string): string {
  return value.length <= 4 ? '****' : `${'*'.repeat(value.length - 4)}${value.slice(-4)}`
}

/** A new 21-character nanoid-like id, as the app gives each webhook delivery. */
export function envelopeId(random: () => number = Math.random): string {
  const alphabet = 'useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict'
  let id = ''
  for (let index = 0; index < 21; index++) id += alphabet[Math.floor(random() * 64)]
  return id
}

/**
 * `sms:received`'s `messageId`: lower-case hex of a 32-bit hash of what the SMS is (§4.2), not
 * unique. Java's `String.hashCode` over the same fields.
 */
export function receivedMessageId(sender: string, receivedAt: number, simNumber: number, text: string): string {
  let hash = 0
  for (const char of `${sender}|${receivedAt}|${simNumber}|${text}`) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0
  return (hash >>> 0).toString(16)
}

/**
 * The wait before the event stream's next connection attempt (§3.2, `SSEManager`): the counter
 * goes up before each wait and back to 0 when a stream opens; 5 s for attempts 1 to 5, 30 s for
 * 6 to 10, 60 s from then on, for ever.
 */
export function reconnectDelayMs(attempt: number): number {
  if (attempt <= 5) return 5_000
  if (attempt <= 10) return 30_000
  return 60_000
}

/**
 * The app's webhook retries (§4.4): 5 s × 2^(n−1) after the n-th failure, given up after 15.
 */
export const WEBHOOK_RETRIES = 15
export function webhookRetryDelayMs(failures: number): number {
  return 5_000 * 2 ** (failures - 1)
}
