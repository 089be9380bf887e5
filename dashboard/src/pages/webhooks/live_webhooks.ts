import { useLiveChannel, type LivePayload } from '../../live/live'

/** What the gateway broadcasts on `webhooks` (app/modules/webhooks/listeners/live_webhooks.ts). */
export type DeliveryChange = LivePayload<'webhooks'>

/**
 * Reads again whenever the delivery engine announces a write or a webhook changes, and once
 * subscribed. Under a burst
 * (one announcement per written batch, several a second) reads do not pile up: while one is
 * under way, later announcements ask for a single read after it.
 */
export function useDeliveryChanges(read: () => Promise<unknown>) {
  let running: Promise<unknown> | null = null
  let again = false

  async function readSoon() {
    if (running) {
      again = true
      return
    }
    do {
      again = false
      running = read()
      try {
        await running
      } finally {
        running = null
      }
    } while (again)
  }

  useLiveChannel('webhooks', () => void readSoon(), () => void readSoon())
  return readSoon
}
