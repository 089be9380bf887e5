import { computed } from 'vue'
import { api, answer } from '../../api/client'
import { useLoaded } from '../../components/use_loaded'
import { may, signedIn } from '../../session/session'

/**
 * The accounts a conversation can be assigned to (operators and superadmins, by name), from
 * GET /users/assignable, which every reader of conversations may call.
 */
export function useAccounts() {
  const loaded = useLoaded(async () => (may('listAssignableAccounts') ? (await answer(api.GET('/api/v1/users/assignable'))).data : []))
  const accounts = computed(() => {
    const me = signedIn.value?.user
    const all = new Map<string, string>((loaded.data.value ?? []).map((user) => [user.id, user.name]))
    if (me && !all.has(me.id)) all.set(me.id, me.name)
    return all
  })
  return { accounts }
}
