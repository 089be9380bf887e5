import { shallowRef, watch, type Ref } from 'vue'
import { api, answer, ApiProblem } from '../../api/client'
import type { components, operations } from '../../api/schema'
import { useCursorList } from '../../components/use_cursor_list'
import { may } from '../../session/session'
import type { Conversation } from './use_inbox'

export type Message = components['schemas']['Message']
export type ConversationChange = NonNullable<operations['updateConversation']['requestBody']>['content']['application/json']

const PAGE = 30

/**
 * The open conversation and its messages. The API pages them newest first; `loadMore()` reads
 * older ones (the thread grows upwards). Opening it marks it read for those who may change
 * conversations: a read-only account looking at it changes nothing.
 */
export function useThread(id: Ref<string | null>, onChanged: () => void) {
  const conversation = shallowRef<Conversation | null>(null)
  const problem = shallowRef<ApiProblem | null>(null)

  const messages = useCursorList<Message>((cursor) =>
    answer(api.GET('/api/v1/conversations/{id}/messages', { params: { path: { id: id.value! }, query: { limit: PAGE, cursor } } }))
  )

  async function reload() {
    const wanted = id.value
    if (!wanted) return
    try {
      const [found] = await Promise.all([answer(api.GET('/api/v1/conversations/{id}', { params: { path: { id: wanted } } })), messages.reload()])
      if (id.value !== wanted) return
      conversation.value = found
      problem.value = null
      if (found.unreadCount > 0 && may('updateConversation')) await change({ markRead: true })
    } catch (error) {
      if (id.value === wanted) problem.value = error instanceof ApiProblem ? error : new ApiProblem(0, 'UNEXPECTED', 'Something went wrong in the dashboard')
    }
  }

  /** PATCH /conversations/{id}: pin, archive, assign or mark read; the inbox reads again. */
  async function change(body: ConversationChange) {
    const wanted = id.value!
    const changed = await answer(api.PATCH('/api/v1/conversations/{id}', { params: { path: { id: wanted } }, body }))
    if (id.value === wanted) conversation.value = changed
    onChanged()
    return changed
  }

  /** A reply in the conversation's category, to its number, as any send (spec: replies are `conversation`). */
  async function reply(body: string) {
    const to = conversation.value!.phone
    await answer(api.POST('/api/v1/messages', { body: { to, body, category: 'conversation' } }))
    await messages.reload()
    onChanged()
  }

  watch(
    id,
    (next) => {
      conversation.value = null
      messages.rows.value = []
      if (next) void reload()
    },
    { immediate: true }
  )

  return { conversation, problem, messages, reload, change, reply }
}
