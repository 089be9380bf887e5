// A webhook receiver that verifies every call as docs/webhooks.md describes.
// Run: WEBHOOK_SECRET=... PORT=8080 node webhook-receiver.mjs
// Needs nothing but Node (18 or newer).
import http from 'node:http'
import { createHmac, timingSafeEqual } from 'node:crypto'

const secret = process.env.WEBHOOK_SECRET
if (!secret) throw new Error('set WEBHOOK_SECRET to the secret the gateway answered when the webhook was created')
const TOLERANCE_SECONDS = 300
// Remembers processed deliveries: a retry or a repeat after a restart is answered 2xx and ignored.
// Keep this in your database in real use; this in-memory set forgets on restart.
const processed = new Set()

function verify(headers, rawBody) {
  const timestamp = headers['x-timestamp']
  const deliveryId = headers['x-delivery-id']
  const signature = headers['x-signature']
  if (!timestamp || !deliveryId || !signature) return 'missing signature headers'
  // 1. Rebuild the signed text from the headers and the raw body, before any JSON parsing.
  const signed = `${timestamp}.${deliveryId}.${rawBody}`
  // 2. HMAC-SHA256 in hexadecimal, prefixed with sha256=.
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(signed).digest('hex')}`)
  // 3. Compare in constant time.
  const given = Buffer.from(String(signature))
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad signature'
  // 4. Refuse a timestamp more than 5 minutes from this machine's clock, either way.
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return 'timestamp out of tolerance'
  return null
}

http
  .createServer((request, response) => {
    const chunks = []
    request.on('data', (chunk) => chunks.push(chunk))
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8')
      const problem = verify(request.headers, rawBody)
      if (problem) {
        console.log(`refused: ${problem}`)
        response.writeHead(401).end()
        return
      }
      // 5. Answer quickly with 2xx; do the work afterwards.
      response.writeHead(204).end()
      const deliveryId = request.headers['x-delivery-id']
      if (processed.has(deliveryId)) return
      processed.add(deliveryId)
      const event = JSON.parse(rawBody)
      console.log(`verified ${request.headers['x-webhook-event']} ${JSON.stringify(event)}`)
    })
  })
  .listen(Number(process.env.PORT ?? 8080), process.env.HOST ?? '0.0.0.0', () => {
    console.log(`listening on ${process.env.PORT ?? 8080}`)
  })
