import { onBeforeUnmount } from 'vue'
import { useLiveChannel } from '../../live/live'

/** One entry of a `messages.changed` broadcast: what changed, never a number or text. */
export interface MessageChange {
  id: string
  conversationId: string
  direction: 'in' | 'out'
  /** The new status, or `deleted`. */
  status: string
}

/** What the gateway broadcasts on `messages`, once per batch it records. */
export interface MessagesChanged {
  type: 'messages.changed'
  at: string
  messages: MessageChange[]
  /** The batch had more changes than listed: anything may have changed. */
  more: boolean
}

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
  useLiveChannel<MessagesChanged>('messages', (change) => {
    if (change.more || concerns(change)) later()
  }, reread)
}
