import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import type { PhoneOrder, PhoneStatus } from '#modules/devices/public'
import type { AppMessage } from '#modules/smsgate/schemas'

/** Where the app's API URL points: `{GATEWAY_PUBLIC_URL}/api/mobile/v1` (docs/smsgate.md). */
export const MOBILE_API_PATH = '/api/mobile/v1'

/** A `:keepalive` comment on every open stream this often, as the app's own server does. */
export const KEEPALIVE_MS = 15_000

/** The event names the app acts on (parsed case-sensitively; an unknown one is ignored). */
export type AppEvent = 'MessageEnqueued' | 'MessageCancelled' | 'WebhooksUpdated' | 'SettingsUpdated'

/**
 * One SSE event as the app's client reads it: an `event:` line, a `data:` line (JSON; `null`
 * when the event carries nothing), a blank line.
 */
export function sseEvent(name: AppEvent, data: Record<string, string> | null = null): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`
}

export const SSE_KEEPALIVE = ':keepalive\n\n'

/**
 * The id the app knows an order by: our message id and the hand-out's instant (base 36 ms), so
 * each hand-out is a new id. The app keys its messages on `id` and never sends an id it already
 * holds again (it only reports it again), so a retry or a message moved back to this phone needs
 * a new one; digits, letters and `-` are safe where the app splits its intents at the first `|`.
 */
export function appMessageId(order: Pick<PhoneOrder, 'messageId' | 'orderedAt'>): string {
  return `${order.messageId}-${order.orderedAt.getTime().toString(36)}`
}

/**
 * Our message and the hand-out named by an id the app reports; a bare message id (as ids were
 * before they named the hand-out) names the message's current hand-out. Null: not one of ours.
 */
export function parseAppMessageId(id: string): { messageId: number; orderedAt?: Date } | null {
  const match = /^([1-9]\d{0,15})(?:-([0-9a-z]{1,11}))?$/.exec(id)
  if (!match) return null
  const messageId = Number(match[1])
  if (match[2] === undefined) return { messageId }
  const orderedAt = new Date(Number.parseInt(match[2], 36))
  return Number.isNaN(orderedAt.getTime()) ? null : { messageId, orderedAt }
}

/**
 * An order in the app's message JSON. `simNumber` is 1-based (slot 0 is SIM 1). Dates with
 * exactly 3 fractional digits, which the app's date parser reads right.
 */
export function appMessage(order: PhoneOrder): AppMessage {
  return {
    id: appMessageId(order),
    message: order.text,
    textMessage: { text: order.text },
    phoneNumbers: [order.to],
    simNumber: order.simSlot + 1,
    withDeliveryReport: true,
    state: 'Pending',
    createdAt: order.orderedAt.toISOString(),
  }
}

/** What one reported state of a message says to the gateway's inlet, in order. */
export type OrderStep = { kind: 'accepted' | 'sent' | 'delivered' } | { kind: 'failed'; errorCode: string }

/**
 * The app's state of a message, as our order reports (docs/smsgate.md). `Pending` and
 * `Processed` say the phone has it; `Sent` and `Delivered` name every step before them too (the
 * inlet ignores a step already stored, so a repeated or late report changes nothing twice);
 * `Failed` carries a short code made from the app's reason. Anything else says nothing.
 */
export function orderSteps(state: string, reason: string | undefined): OrderStep[] {
  switch (state) {
    case 'Pending':
    case 'Processed':
      return [{ kind: 'accepted' }]
    case 'Sent':
      return [{ kind: 'accepted' }, { kind: 'sent' }]
    case 'Delivered':
      return [{ kind: 'accepted' }, { kind: 'sent' }, { kind: 'delivered' }]
    case 'Failed':
      return [{ kind: 'failed', errorCode: failureCode(reason) }]
    case 'Cancelled':
      return [{ kind: 'failed', errorCode: 'CANCELLED_ON_PHONE' }]
    default:
      return []
  }
}

/**
 * A short code from the app's failure text: `Send result: RESULT_ERROR_NO_SERVICE (…)` gives
 * `NO_SIGNAL`, `RESULT_ERROR_RADIO_OFF` `RADIO_OFF`, another `RESULT_…` its name; a failed
 * delivery report `DELIVERY_FAILED`; an expired message `TTL_EXPIRED`; a SIM the phone does
 * not have `SIM_NOT_FOUND`; an exception while
 * sending `SEND_ERROR`; anything else `GENERIC_FAILURE`.
 */
export function failureCode(reason: string | undefined): string {
  const text = reason ?? ''
  const result = /\bRESULT_(?:ERROR_)?([A-Z0-9_]+)/.exec(text)
  if (result) {
    if (result[1] === 'NO_SERVICE') return 'NO_SIGNAL'
    return result[1].slice(0, 40)
  }
  if (text.startsWith('Delivery result')) return 'DELIVERY_FAILED'
  if (text.startsWith('TTL expired')) return 'TTL_EXPIRED'
  if (/^SIM \d+ not found/.test(text)) return 'SIM_NOT_FOUND'
  if (text.startsWith('sendSMS') || text.startsWith("Can't send message")) return 'SEND_ERROR'
  return 'GENERIC_FAILURE'
}

/**
 * The app's webhook events the gateway registers for each phone (`GET /webhooks`), all posted to
 * the phone's own URL: received SMS, data SMS and MMS notices, which are acknowledged and logged
 * (docs/smsgate.md, Received SMS), and its pings, which carry its battery. The order reports
 * (`sms:sent`, `sms:delivered`, `sms:failed`) already come through `PATCH /message`, once per
 * message rather than per part.
 */
export const WEBHOOK_EVENTS = ['sms:received', 'sms:data-received', 'mms:received', 'system:ping'] as const

/**
 * How often the app pings (`ping.interval_seconds` in `GET /settings`): its `system:ping` is the
 * only report of its battery, and each ping also fetches its orders.
 */
export const PING_INTERVAL_S = 300

/**
 * Battery from a `system:ping` payload (`health.checks`): `battery:level` in percent, and
 * `battery:charging` as the charger's flags (0: not plugged in). The app has no signal strength
 * to give (`connection:cellular` is the network type). A value missing or not a number is left
 * out; null when there is neither.
 */
export function pingStatus(payload: unknown): PhoneStatus | null {
  const checks = (payload as { health?: { checks?: Record<string, { observedValue?: unknown } | undefined> } } | null)?.health?.checks
  if (!checks || typeof checks !== 'object') return null
  const level = checks['battery:level']?.observedValue
  const charging = checks['battery:charging']?.observedValue
  const status: PhoneStatus = {}
  if (typeof level === 'number' && Number.isFinite(level)) status.batteryLevel = level
  if (typeof charging === 'number' && Number.isFinite(charging)) status.charging = charging > 0
  else if (typeof charging === 'boolean') status.charging = charging
  return Object.keys(status).length ? status : null
}

/** Every event the app knows (docs/smsgate-app-protocol.md, §2.6): any other one breaks its sync. */
export const APP_WEBHOOK_EVENTS = [
  'sms:received',
  'sms:sent',
  'sms:delivered',
  'sms:failed',
  'system:ping',
  'sms:data-received',
  'mms:received',
  'mms:downloaded',
  'app:started',
  'sms:cancelled',
] as const

/** A signed webhook is taken within 5 minutes either side of the gateway's clock. */
export const SIGNATURE_WINDOW_S = 300

export type SignatureCheck = 'valid' | 'unsigned' | 'stale' | 'wrong'

/**
 * The app's webhook signature (docs/smsgate-app-protocol.md, §4.3): `X-Signature` is the
 * lower-case hex HMAC-SHA256, keyed with the signing key's UTF-8 bytes, of the raw body bytes
 * followed by the `X-Timestamp` text (Unix seconds).
 */
export function checkSignature(
  key: string,
  rawBody: Buffer,
  headers: { timestamp: string | undefined; signature: string | undefined },
  nowMs: number
): SignatureCheck {
  const { timestamp, signature } = headers
  if (!timestamp || !signature) return 'unsigned'
  if (!/^\d{1,12}$/.test(timestamp.trim()) || Math.abs(nowMs / 1000 - Number(timestamp.trim())) > SIGNATURE_WINDOW_S) return 'stale'
  const expected = createHmac('sha256', Buffer.from(key, 'utf8')).update(rawBody).update(timestamp.trim(), 'utf8').digest()
  const given = /^[0-9a-fA-F]{64}$/.test(signature.trim()) ? Buffer.from(signature.trim(), 'hex') : null
  return given && timingSafeEqual(given, expected) ? 'valid' : 'wrong'
}

/** An `sms:received` payload (validated), as the app sends it. */
export interface ReceivedSmsPayload {
  message: string
  receivedAt?: string
  sender?: string
  phoneNumber?: string
  simNumber?: number
}

/**
 * The phone's reference of a received SMS. The app's `messageId` is a 32-bit hash and not
 * unique, and each post has a new envelope id: the reference is made from what the SMS is (its
 * sender, the instant it was received, the SIM and the text), so the same SMS posted again is
 * stored once and two SMS differing in any of these are two messages.
 */
export function receivedSmsRef(payload: ReceivedSmsPayload): string {
  const instant = payload.receivedAt ? Date.parse(payload.receivedAt) : Number.NaN
  const parts = [payload.sender ?? payload.phoneNumber ?? '', Number.isNaN(instant) ? (payload.receivedAt ?? '') : instant, payload.simNumber ?? null, payload.message]
  return `sms:${createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 32)}`
}

/** A webhook's id in the app (its only key, so unique beside the user's own): stable for a device and event. */
export function webhookId(pathSecret: string, event: string): string {
  return `gw-${createHash('sha256').update(`${pathSecret}|${event}`).digest('base64url').slice(0, 18)}`
}
