import { onBeforeUnmount, watch, type Ref } from 'vue'
import { api, answer } from '../../api/client'
import type { components } from '../../api/schema'
import { useCursorList } from '../../components/use_cursor_list'
import { useLiveChannel, type LivePayload } from '../../live/live'
import { listQueryOf, type MessageFilters } from './use_message_filters'

export type Message = components['schemas']['Message']

/** What the gateway broadcasts on `messages` (app/modules/messages/listeners/live_messages.ts). */
/** (`more`: the batch changed more messages than listed.) */
export type MessagesChanged = LivePayload<'messages'>

export const PAGE_SIZE = 50
/** The API's largest page: a live re-read keeps up to this many rows already shown. */
const MAX_PAGE = 200
/** Live changes that arrive together cost one read. */
const DEBOUNCE_MS = 300

/**
 * Re-reads what a page shows when `concerns` says a broadcast on `messages` touches it: once
 * DEBOUNCE_MS after the first such change (those arriving meanwhile ride along, and a steady
 * stream still gets a read every DEBOUNCE_MS); and once subscribed, so nothing before the
 * subscription is missed.
 */
export function useMessageChanges(concerns: (change: MessagesChanged) => boolean, reread: () => void) {
  let timer: ReturnType<typeof setTimeout> | undefined
  const schedule = () => {
    timer ??= setTimeout(() => {
      timer = undefined
      reread()
    }, DEBOUNCE_MS)
  }
  useLiveChannel('messages', (change) => concerns(change) && schedule(), reread)
  onBeforeUnmount(() => clearTimeout(timer))
}

/**
 * The messages matching the filters, newest first, a page at a time ("Load more"), read again
 * when the filters change or a live change concerns a row shown or one the first page could
 * now show.
 */
export function useMessages(filters: Ref<MessageFilters>) {
  let firstPageSize = PAGE_SIZE
  const list = useCursorList<Message>((cursor) =>
    answer(api.GET('/api/v1/messages', { params: { query: { ...listQueryOf(filters.value), limit: cursor ? PAGE_SIZE : firstPageSize, cursor } } }))
  )
  const reload = (keepShown: boolean) => {
    // A live change re-reads the rows on screen in one request (pages loaded with "Load more"
    // stay, up to the API's largest page); new filters start again from one page.
    firstPageSize = keepShown ? Math.min(MAX_PAGE, Math.max(PAGE_SIZE, list.rows.value.length)) : PAGE_SIZE
    void list.reload()
  }
  watch(filters, () => reload(false))
  reload(false)

  function concerns(change: MessagesChanged): boolean {
    if (change.more) return true
    const shown = new Set(list.rows.value.map((row) => row.id))
    const { direction, status } = filters.value
    return change.messages.some(
      (entry) => shown.has(entry.id) || ((!direction || entry.direction === direction) && (!status || entry.status === status))
    )
  }
  useMessageChanges(concerns, () => reload(true))
  return list
}
