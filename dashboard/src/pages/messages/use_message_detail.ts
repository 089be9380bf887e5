import { computed, ref, shallowRef, watch, type Ref } from 'vue'
import { api, answer, ApiProblem } from '../../api/client'
import { useMessageChanges, type Message } from './use_messages'
import { nextMidnightIn } from './next_midnight'

/**
 * The open message (GET /messages/{id}), read again when the live stream says it changed; a
 * deletion (here or elsewhere) leaves `deleted` set. For a message waiting for a SIM quota, the
 * platform's next midnight, in the time zone GET /auth/me names.
 */
export function useMessageDetail(id: Ref<string | null>) {
  const message = shallowRef<Message | null>(null)
  const problem = shallowRef<ApiProblem | null>(null)
  const deleted = ref(false)
  const quotaResetAt = shallowRef<Date | null>(null)
  let timezone: string | null = null

  async function read() {
    const wanted = id.value
    if (!wanted) return
    try {
      const found = await answer(api.GET('/api/v1/messages/{id}', { params: { path: { id: wanted } } }))
      if (wanted !== id.value) return
      message.value = found
      problem.value = null
      if (found.status === 'pending_quota_exceeded') quotaResetAt.value = await nextQuotaReset()
    } catch (error) {
      if (wanted !== id.value) return
      if (error instanceof ApiProblem && error.status === 404) deleted.value = true
      else problem.value = error instanceof ApiProblem ? error : new ApiProblem(0, 'UNEXPECTED', 'Something went wrong in the dashboard')
    }
  }

  async function nextQuotaReset(): Promise<Date | null> {
    try {
      timezone ??= (await answer(api.GET('/api/v1/auth/me'))).timezone
      return nextMidnightIn(timezone, new Date())
    } catch {
      // why: the time zone only dates the quota's reset; without it the reason still shows,
      // with no time, and the message's own read (above) reports any failure of the gateway.
      return null
    }
  }

  watch(
    id,
    () => {
      message.value = null
      problem.value = null
      deleted.value = false
      void read()
    },
    { immediate: true }
  )
  useMessageChanges((change) => !!id.value && change.messages.some((entry) => entry.id === id.value), () => void read())

  const loading = computed(() => !!id.value && !message.value && !problem.value && !deleted.value)
  return { message, problem, deleted, loading, quotaResetAt, reload: read }
}
