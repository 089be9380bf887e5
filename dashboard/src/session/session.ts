import { computed, shallowRef } from 'vue'
import { api, answer, ApiProblem } from '../api/client'
import type { components } from '../api/schema'
import { roleMay, type Role } from '../api/operations_access'
import type { OperationId } from '../api/operations'
import { closeLive } from '../live/live'

export type User = components['schemas']['User']

export interface SignedIn {
  user: User
  role: Role
}

/**
 * Who is signed in, as GET /auth/me answers: the one place the dashboard reads the role from.
 * `undefined` until asked, `null` when no one is signed in.
 */
const current = shallowRef<SignedIn | null | undefined>(undefined)

export const signedIn = computed(() => current.value ?? null)

export async function loadSession(): Promise<SignedIn | null> {
  if (current.value !== undefined) return current.value
  try {
    const me = await answer(api.GET('/api/v1/auth/me'))
    // A session answers its account; an API key (never used by the dashboard) is no sign-in.
    current.value = me.type === 'session' ? { user: me.user, role: me.role } : null
  } catch (problem) {
    if (!(problem instanceof ApiProblem) || problem.status !== 401) throw problem
    current.value = null
  }
  return current.value
}

export function rememberSignIn(user: User) {
  current.value = { user, role: user.role }
}

export async function signOut() {
  await answer(api.POST('/api/v1/auth/logout'))
  closeLive()
  current.value = null
}

/** Whether the signed-in account may call an operation: decides menu entries and action buttons. */
export function may(operation: OperationId): boolean {
  const session = current.value
  return !!session && roleMay(session.role, operation)
}

/**
 * A session that ends under the dashboard's feet (deleted account, new password elsewhere,
 * expiry) answers 401 to the next call: forget it and let the router send the person to the
 * sign-in form instead of showing "MISSING_API_KEY" on the page.
 */
let onSessionLost: (() => void) | undefined
export function whenSessionLost(handler: () => void) {
  onSessionLost = handler
}
api.use({
  onResponse({ response }) {
    if (response.status === 401 && current.value) {
      current.value = null
      closeLive()
      onSessionLost?.()
    }
  },
})

export async function setUpIsOpen(): Promise<boolean> {
  return (await answer(api.GET('/api/v1/auth/setup'))).open
}
