import { computed } from 'vue'
import { api, answer } from '../../api/client'
import type { components } from '../../api/schema'
import { useLoaded } from '../../components/use_loaded'

export type Message = components['schemas']['Message']
export type MessageStatus = Message['status']

export const RECENT_MESSAGES = 100

/**
 * The latest messages and how many are in each status. The API has no counts per status yet
 * (a statistics endpoint is to come): this is the latest page, not "today".
 */
export function useRecentMessages() {
  const loaded = useLoaded(async () => (await answer(api.GET('/api/v1/messages', { params: { query: { limit: RECENT_MESSAGES } } }))).data)
  const byStatus = computed(() => {
    const counts = new Map<MessageStatus, number>()
    for (const message of loaded.data.value ?? []) counts.set(message.status, (counts.get(message.status) ?? 0) + 1)
    return counts
  })
  return { ...loaded, byStatus }
}
