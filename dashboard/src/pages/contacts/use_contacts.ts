import { api, answer } from '../../api/client'
import type { components } from '../../api/schema'

export type Contact = components['schemas']['Contact']

export type ContactFields = {
  phone: string
  firstName: string | null
  lastName: string | null
  company: string | null
  email: string | null
  notes: string | null
  tags: string[]
  blacklisted: boolean
}

/** How a person calls a contact: the name when it has one, else its number. */
export function contactName(contact: Contact): string {
  const name = [contact.firstName, contact.lastName].filter(Boolean).join(' ')
  return name || contact.phone
}

export async function searchContacts(search: string, cursor?: string, limit = 50) {
  const q = search.trim() || undefined
  return answer(api.GET('/api/v1/contacts', { params: { query: { q, cursor, limit } } }))
}

export async function getContact(id: string) {
  return answer(api.GET('/api/v1/contacts/{id}', { params: { path: { id } } }))
}

export async function createContact(fields: ContactFields) {
  return answer(api.POST('/api/v1/contacts', { body: fields }))
}

export async function updateContact(id: string, fields: Partial<ContactFields>) {
  return answer(api.PATCH('/api/v1/contacts/{id}', { params: { path: { id } }, body: fields }))
}

export async function deleteContact(id: string) {
  return answer(api.DELETE('/api/v1/contacts/{id}', { params: { path: { id } } }))
}
