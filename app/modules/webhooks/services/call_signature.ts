import { createHmac, randomBytes } from 'node:crypto'

/**
 * A call's signature (docs/webhooks.md, A call): `sha256=` and the lowercase hex HMAC-SHA256, keyed
 * with the secret, of `<X-Timestamp>.<X-Delivery-Id>.<raw body>`.
 */
export function signCall(secret: string, timestamp: number, deliveryId: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${deliveryId}.${body}`).digest('hex')}`
}

/** A secret drawn by the gateway when the operator gives none: 256 random bits. */
export function drawSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`
}
