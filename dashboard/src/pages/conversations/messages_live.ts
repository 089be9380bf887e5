import { onBeforeUnmount } from 'vue'
import { useLiveChannel, type LivePayload } from '../../live/live'

/** What the gateway broadcasts on `messages`, once per batch it records (`more`: anything may have changed). */
export type MessagesChanged = LivePayload<'messages'>

/** One entry of a `messages.changed` broadcast: what changed, never a number or text. */
export type MessageChange = MessagesChanged['messages'][number]

/**
 * Calls `reread` at most once per `waitMs` while `messages` broadcasts keep coming, when
 * `concerns` says a broadcast touches what the page shows, and once the subscription is in
 * place. A batch of sends broadcasts several times in a row: one read covers them all.
 */
export function useMessagesChanged(concerns: (change: MessagesChanged) => boolean, reread: () => void, waitMs = 300) {
  let timer: ReturnType<typeof setTimeout> | undefined
  const later = () => {
    if (timer) return
    timer = setTimeout(() => {
      timer = undefined
      reread()
    }, waitMs)
  }
  onBeforeUnmount(() => clearTimeout(timer))
  useLiveChannel('messages', (change) => {
    if (change.more || concerns(change)) later()
  }, reread)
}
