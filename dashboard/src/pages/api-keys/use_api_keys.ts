import { api, answer } from '../../api/client'
import type { components } from '../../api/schema'
import { useCursorList } from '../../components/use_cursor_list'

export type ApiKey = components['schemas']['ApiKey']
export type Scope = ApiKey['scope']

/** Spec, Scopes: ordered, each includes the one before. */
export const scopes: Array<{ value: Scope; label: string; hint: string }> = [
  { value: 'read', label: 'read', hint: 'every read: messages, conversations, contacts, phones, statistics' },
  { value: 'send', label: 'send', hint: 'read, plus sending and retrying messages' },
  { value: 'admin', label: 'admin', hint: 'the whole API: configuration, webhooks, exports, backups, keys' },
]

export function useApiKeyList() {
  return useCursorList((cursor) => answer(api.GET('/api/v1/api-keys', { params: { query: { cursor, limit: 50 } } })))
}

export async function createApiKey(fields: { name: string; scope: Scope }) {
  return answer(api.POST('/api/v1/api-keys', { body: fields }))
}

export async function rotateApiKey(id: string) {
  return answer(api.POST('/api/v1/api-keys/{id}/rotate', { params: { path: { id } } }))
}

export async function revokeApiKey(id: string) {
  await answer(api.DELETE('/api/v1/api-keys/{id}', { params: { path: { id } } }))
}
