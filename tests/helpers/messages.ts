import db from '@adonisjs/lucid/services/db'
import app from '@adonisjs/core/services/app'
import type { ApiClient } from '@japa/api-client'
import { SettingsStore } from '#core/settings/settings_store'
import { testKeys } from '#tests/helpers/callers'

/** Empties the messaging tables between tests (real SQLite, no mocks). */
export async function clearMessaging() {
  for (const table of ['messages', 'conversations', 'contacts', 'links', 'idempotency_keys']) await db.from(table).delete()
}

export async function setLocalPrefix(prefix: string | null) {
  await (await app.container.make(SettingsStore)).update({ reception: { localPrefix: prefix } })
}

export function sendAs(client: ApiClient, body: unknown, key = testKeys.send) {
  return client.post('/api/v1/messages').header('x-api-key', key).json(body as any)
}

export async function messageCount(): Promise<number> {
  const row = await db.from('messages').count('* as total').first()
  return Number(row.total)
}
