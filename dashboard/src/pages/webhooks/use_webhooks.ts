import { api, answer } from '../../api/client'
import type { components } from '../../api/schema'
import { useCursorList } from '../../components/use_cursor_list'
import { useLoaded } from '../../components/use_loaded'

export type Webhook = components['schemas']['Webhook']
export type EventName = Webhook['events'][number]

/** Spec, Webhook state: the dashboard's three labels. */
export function stateOf(webhook: Webhook): 'Active' | 'Paused' | 'Disabled after failures' {
  if (webhook.active) return 'Active'
  return webhook.disabledAt ? 'Disabled after failures' : 'Paused'
}

export function useWebhookList() {
  return useCursorList((cursor) => answer(api.GET('/api/v1/webhooks', { params: { query: { cursor, limit: 50 } } })))
}

/** The events a webhook may subscribe to, grouped by family in the gateway's order. */
export function useEventCatalogue() {
  return useLoaded(async () => {
    const { data } = await answer(api.GET('/api/v1/webhooks/events'))
    const families = new Map<string, typeof data>()
    for (const event of data) families.set(event.family, [...(families.get(event.family) ?? []), event])
    return { events: data, families: [...families].map(([family, events]) => ({ family, events })) }
  })
}

export interface WebhookForm {
  name: string
  url: string
  method: 'POST' | 'PUT' | 'PATCH'
  events: EventName[]
  /** Empty: drawn by the gateway on creation, kept on a change. */
  secret: string
}

export async function createWebhook(form: WebhookForm) {
  return answer(api.POST('/api/v1/webhooks', { body: { ...form, secret: form.secret || undefined } }))
}

export async function updateWebhook(id: string, change: Partial<WebhookForm> & { active?: boolean }) {
  return answer(api.PATCH('/api/v1/webhooks/{id}', { params: { path: { id } }, body: change }))
}

export async function deleteWebhook(id: string) {
  await answer(api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id } } }))
}
