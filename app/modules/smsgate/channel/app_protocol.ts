import type { PhoneOrder } from '#modules/devices/public'

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

/** An order as `GET /message` lists it, in the app's message JSON. */
export interface AppMessage {
  id: string
  message: string
  textMessage: { text: string }
  phoneNumbers: string[]
  simNumber: number
  withDeliveryReport: boolean
  state: 'Pending'
  createdAt: string
}

/**
 * The app keys its messages on `id` and splits its intents at the first `|`: our message id as
 * a string (digits) is safe. `simNumber` is 1-based (slot 0 is SIM 1). Dates with exactly 3
 * fractional digits, which the app's date parser reads right.
 */
export function appMessage(order: PhoneOrder, handedAt: number): AppMessage {
  return {
    id: String(order.messageId),
    message: order.text,
    textMessage: { text: order.text },
    phoneNumbers: [order.to],
    simNumber: order.simSlot + 1,
    withDeliveryReport: true,
    state: 'Pending',
    createdAt: new Date(handedAt).toISOString(),
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
 * delivery report `DELIVERY_FAILED`; an expired message `TTL_EXPIRED`; an exception while
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
  if (text.startsWith('sendSMS') || text.startsWith("Can't send message")) return 'SEND_ERROR'
  return 'GENERIC_FAILURE'
}
