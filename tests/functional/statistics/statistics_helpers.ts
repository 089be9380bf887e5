import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import type { ApiClient } from '@japa/api-client'
import { SettingsStore } from '#core/settings/settings_store'
import { testKeys } from '#tests/helpers/callers'
import { clearMessaging } from '#tests/helpers/messages'

export const statuses = ['queued', 'dispatched', 'sent', 'delivered', 'failed', 'pending_quota_exceeded', 'paused', 'cancelled']

/** The out counts of an answer with only the given statuses non-zero. */
export function out(counts: Record<string, number> = {}) {
  return Object.fromEntries(statuses.map((status) => [status, counts[status] ?? 0]))
}

export async function setTimezone(timezone: string) {
  await (await app.container.make(SettingsStore)).update({ sending: { timezone } })
}

/** The messaging tables and the counters that outlive their rows (clicks, opt changes). */
export async function clearStatistics() {
  await clearMessaging()
  for (const table of ['link_click_counts', 'contact_opt_changes']) await db.from(table).delete()
}

export interface SeededMessage {
  createdAt: string
  direction?: 'in' | 'out'
  status?: string
  category?: string
  deviceId?: string | null
  simSlot?: number | null
  campaignId?: number | null
  errorCode?: string | null
  scheduledAt?: string | null
  sentAt?: string | null
  deliveredAt?: string | null
}

/** Test seeding in SQL (the module code never writes another module's table). */
export async function seed(messages: SeededMessage[]) {
  const phone = '+33612345678'
  let conversation = await db.from('conversations').where('phone', phone).first()
  if (!conversation) {
    await db.table('conversations').insert({
      phone, state: 'open', unread_count: 0, pinned: false, archived: false, category: 'transactional',
      created_at: '2026-01-01T00:00:00.000Z', last_message_at: '2026-01-01T00:00:00.000Z',
    })
    conversation = await db.from('conversations').where('phone', phone).first()
  }
  const ids: number[] = []
  for (const message of messages) {
    const direction = message.direction ?? 'out'
    const [id] = await db.table('messages').insert({
      conversation_id: conversation.id, direction, category: message.category ?? 'transactional', phone, body: 'x',
      encoding: 'gsm7', segments: 1, status: message.status ?? (direction === 'in' ? 'delivered' : 'sent'), attempts: 0,
      device_id: message.deviceId ?? null, sim_slot: message.simSlot ?? null, campaign_id: message.campaignId ?? null,
      error_code: message.errorCode ?? null, scheduled_at: message.scheduledAt ?? null, sent_at: message.sentAt ?? null,
      delivered_at: message.deliveredAt ?? null, created_at: message.createdAt, updated_at: message.createdAt,
    })
    ids.push(Number(id))
  }
  return ids
}

export function statistics(client: ApiClient, endpoint: string, query: Record<string, string>, key = testKeys.read) {
  return client.get(`/api/v1/statistics/${endpoint}`).qs(query).header('x-api-key', key)
}

export async function statisticsOk(client: ApiClient, endpoint: string, query: Record<string, string>) {
  const response = await statistics(client, endpoint, query)
  response.assertStatus(200)
  return response.body()
}

/** Seconds after an ISO instant, as an ISO instant. */
export function after(iso: string, seconds: number) {
  return new Date(new Date(iso).getTime() + seconds * 1000).toISOString()
}
