import { Transmit } from '@adonisjs/transmit-client'
import { onBeforeUnmount } from 'vue'
import { withXsrfHeader } from '../api/client'
import type { live } from '../api/schema'

/**
 * Each live channel's payload, by channel name, generated from the schemas the gateway's modules
 * declare (defineLiveChannel; dashboard/scripts/generate_api.mjs): a payload changed on the
 * server fails this dashboard's type check.
 */
export type LivePayloads = live.components['schemas']
export type LiveChannelName = keyof LivePayloads
export type LivePayload<Channel extends LiveChannelName> = LivePayloads[Channel]

/**
 * The gateway's Transmit (Server-Sent Events) stream, opened once after sign-in. Subscribing is
 * a session write, so it echoes the XSRF token like every other write.
 */
let transmit: Transmit | undefined

function stream(): Transmit {
  transmit ??= new Transmit({
    baseUrl: window.location.origin,
    beforeSubscribe: (request) => void withXsrfHeader(request),
    beforeUnsubscribe: (request) => void withXsrfHeader(request),
  })
  return transmit
}

/**
 * Calls `handler` for each message on a channel while the calling component is mounted.
 * `onSubscribed` runs once the gateway has the subscription: a page reads its data again then,
 * so a change between its first read and the subscription is not missed.
 *
 * A channel stays subscribed until sign-out even when no page listens: a few idle channels
 * cost nothing, while unsubscribing as one page leaves and subscribing as the next arrives
 * races (the next page's handler would hang on a subscription being deleted).
 */
export function useLiveChannel<Channel extends LiveChannelName>(
  channel: Channel,
  handler: (message: LivePayload<Channel>) => void,
  onSubscribed?: () => void
) {
  const subscription = stream().subscription(channel)
  const stop = subscription.onMessage<LivePayload<Channel>>(handler)
  subscription.create().then(
    () => onSubscribed?.(),
    () => {
      // The page still works from its last answer; a reload subscribes again.
    }
  )
  onBeforeUnmount(stop)
}

export function closeLive() {
  transmit?.close()
  transmit = undefined
}
