import { api, answer } from '../../api/client'
import type { components } from '../../api/schema'

export type Template = components['schemas']['Template']
export type TemplatePreview = components['schemas']['TemplatePreview']

export const builtInVariables = ['name', 'firstName', 'lastName', 'phone', 'company', 'email']

export async function listTemplates(q: string, cursor?: string) {
  return answer(api.GET('/api/v1/templates', { params: { query: { ...(q.trim() ? { q: q.trim() } : {}), ...(cursor ? { cursor } : {}) } } }))
}
export async function getTemplate(id: string) {
  return answer(api.GET('/api/v1/templates/{id}', { params: { path: { id } } }))
}
export async function saveTemplate(id: string | null, fields: { name: string; body: string }) {
  return id
    ? answer(api.PATCH('/api/v1/templates/{id}', { params: { path: { id } }, body: fields }))
    : answer(api.POST('/api/v1/templates', { body: fields }))
}
export async function deleteTemplate(id: string) {
  await answer(api.DELETE('/api/v1/templates/{id}', { params: { path: { id } } }))
}
export async function previewTemplate(body: string, contactIds: string[]) {
  return answer(api.POST('/api/v1/templates/preview', { body: { body, ...(contactIds.length ? { contactIds } : {}) } }))
}
export async function contactFieldKeys() {
  return (await answer(api.GET('/api/v1/contacts/fields'))).data.map((entry) => entry.key)
}
