import { api, answer } from '../../api/client'
import type { components } from '../../api/schema'

export type Group = components['schemas']['Group']

export async function listGroups(q: string, cursor?: string) {
  return answer(api.GET('/api/v1/groups', { params: { query: { ...(q.trim() ? { q: q.trim() } : {}), ...(cursor ? { cursor } : {}) } } }))
}
export async function getGroup(id: string) {
  return answer(api.GET('/api/v1/groups/{id}', { params: { path: { id } } }))
}
export async function createGroup(fields: { name: string; description: string | null }) {
  return answer(api.POST('/api/v1/groups', { body: fields }))
}
export async function updateGroup(id: string, fields: { name?: string; description?: string | null }) {
  return answer(api.PATCH('/api/v1/groups/{id}', { params: { path: { id } }, body: fields }))
}
export async function deleteGroup(id: string) {
  await answer(api.DELETE('/api/v1/groups/{id}', { params: { path: { id } } }))
}
export async function listMembers(id: string, q: string, cursor?: string) {
  return answer(api.GET('/api/v1/groups/{id}/members', { params: { path: { id }, query: { ...(q.trim() ? { q: q.trim() } : {}), ...(cursor ? { cursor } : {}) } } }))
}
export async function addMembers(id: string, contactIds: string[]) {
  return answer(api.POST('/api/v1/groups/{id}/members', { params: { path: { id } }, body: { contactIds } }))
}
export async function removeMembers(id: string, contactIds: string[]) {
  return answer(api.POST('/api/v1/groups/{id}/members/remove', { params: { path: { id } }, body: { contactIds } }))
}
