import http from 'node:http'
import { randomUUID } from 'node:crypto'
import type { ApiClient } from '@japa/api-client'
import type { BrowserSession } from '#tests/helpers/callers'
import { eventually } from '#tests/helpers/phones'

/**
 * A signed-in dashboard's Transmit stream, read as a browser's EventSource would, subscribed
 * to one channel. `events()` answers the payloads received so far.
 */
export async function openLiveStream(client: ApiClient, session: BrowserSession, channel: string) {
  const uid = randomUUID()
  let received = ''
  let status = 0
  const request = http.get(
    `${process.env.GATEWAY_PUBLIC_URL}/__transmit/events?uid=${uid}`,
    { headers: { cookie: session.cookie, accept: 'text/event-stream' } },
    (response) => {
      status = response.statusCode ?? 0
      response.on('data', (chunk) => (received += chunk))
    }
  )
  request.on('error', () => {})
  await eventually(() => status === 200)
  const subscribed = await client.post('/__transmit/subscribe').header('cookie', session.cookie).header('x-xsrf-token', session.xsrf).json({ uid, channel })
  subscribed.assertStatus(204)
  return {
    events: () =>
      received
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => JSON.parse(line.replace(/^data:\s*/, '')) as { channel: string; payload: Record<string, unknown> })
        .filter((event) => event.channel === channel)
        .map((event) => event.payload),
    close: () => request.destroy(),
  }
}
