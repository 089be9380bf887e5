import { computed } from 'vue'
import { api, answer } from '../../api/client'
import { useLoaded } from '../../components/use_loaded'
import { may, signedIn } from '../../session/session'

/**
 * The accounts a conversation can be assigned to, as far as this role may know them: a
 * superadmin reads every account (GET /users is theirs); anyone else knows only themselves.
 */
export function useAccounts() {
  const loaded = useLoaded(async () =>
    may('listUsers') ? (await answer(api.GET('/api/v1/users', { params: { query: { limit: 200 } } }))).data : []
  )
  const accounts = computed(() => {
    const me = signedIn.value?.user
    const all = new Map<string, string>((loaded.data.value ?? []).map((user) => [user.id, user.name]))
    if (me && !all.has(me.id)) all.set(me.id, me.name)
    return all
  })
  return { accounts }
}
