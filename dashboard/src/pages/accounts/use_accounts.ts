import { api, answer } from '../../api/client'
import type { components } from '../../api/schema'
import { useCursorList } from '../../components/use_cursor_list'
import { useLoaded } from '../../components/use_loaded'
import { roleLabels } from '../../components/labels'

export type Account = components['schemas']['User']
export type Role = Account['role']

/** What each role may do, in the words of the spec's Roles table: shown where a role is chosen. */
export const roleChoices: ReadonlyArray<{ value: Role; label: string; hint: string }> = [
  { value: 'readonly', label: roleLabels.readonly, hint: 'sees messages, phones and logs; changes nothing' },
  { value: 'operator', label: roleLabels.operator, hint: 'also sends, pairs phones, manages webhooks' },
  { value: 'superadmin', label: roleLabels.superadmin, hint: 'everything, including accounts, API keys and backups' },
]

export function roleLabel(role: Role): string {
  return roleLabels[role] ?? role
}

/** The accounts, newest first, a page of 50 at a time. */
export function useAccounts() {
  return useCursorList<Account>((cursor) => answer(api.GET('/api/v1/users', { params: { query: { cursor, limit: 50 } } })))
}

/**
 * How many superadmins there are, all pages together: GET /users/assignable lists every operator
 * and superadmin (a gateway has a handful, not paged). Undefined until read or when the read failed.
 */
export function useSuperadminCount() {
  const loaded = useLoaded(async () => (await answer(api.GET('/api/v1/users/assignable'))).data.filter((account) => account.role === 'superadmin').length)
  return { count: loaded.data, reload: loaded.reload }
}

export interface NewAccount {
  name: string
  email: string
  password: string
  role: Role
}

export const createAccount = (account: NewAccount) => answer(api.POST('/api/v1/users', { body: account }))

export const changeAccount = (id: string, change: Partial<NewAccount>) =>
  answer(api.PATCH('/api/v1/users/{id}', { params: { path: { id } }, body: change }))

export const deleteAccount = (id: string) => answer(api.DELETE('/api/v1/users/{id}', { params: { path: { id } } }))
