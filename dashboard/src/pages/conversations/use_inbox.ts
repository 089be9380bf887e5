import { ref, watch, type Ref } from 'vue'
import { api, answer } from '../../api/client'
import type { components, operations } from '../../api/schema'
import { useCursorList } from '../../components/use_cursor_list'

export type Conversation = components['schemas']['Conversation']
/** A row of the list: the conversation and the first words of its last message. */
export type ConversationListItem = components['schemas']['ConversationListItem']
type InboxQuery = NonNullable<operations['listConversations']['parameters']['query']>

/** The inbox's tabs, each a filter of GET /conversations. */
export const inboxViews = [
  { key: 'unread', label: 'Unread', query: { unread: true, archived: false } },
  { key: 'awaiting', label: 'Awaiting reply', query: { state: 'awaiting_reply', archived: false } },
  { key: 'all', label: 'All', query: {} },
  { key: 'archived', label: 'Archived', query: { archived: true } },
] as const satisfies ReadonlyArray<{ key: string; label: string; query: InboxQuery }>

export type InboxView = (typeof inboxViews)[number]['key']

/** Pinned conversations shown above the rest; more than this many pinned is not an inbox any more. */
const PINNED_SHOWN = 100
const PAGE = 50

async function readConversations(query: InboxQuery) {
  return answer(api.GET('/api/v1/conversations', { params: { query } }))
}

/**
 * The conversations of one tab, latest activity first with the pinned ones on top: the API
 * orders by activity only, so the first page is the pinned ones (one read) followed by the
 * first page of the others, and "Show more" pages through the others.
 */
export function useInbox(initial: InboxView, search: Ref<string>) {
  const view = ref<InboxView>(initial)
  const filter = (): InboxQuery => ({ ...inboxViews.find((candidate) => candidate.key === view.value)!.query, q: search.value || undefined })

  const list = useCursorList<ConversationListItem>(async (cursor) => {
    if (cursor) return readConversations({ ...filter(), pinned: false, limit: PAGE, cursor })
    const [pinned, others] = await Promise.all([
      readConversations({ ...filter(), pinned: true, limit: PINNED_SHOWN }),
      readConversations({ ...filter(), pinned: false, limit: PAGE }),
    ])
    return { data: [...pinned.data, ...others.data], nextCursor: others.nextCursor }
  })
  watch([view, search], () => void list.reload())
  void list.reload()
  return { view, ...list }
}
