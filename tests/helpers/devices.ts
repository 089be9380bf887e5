import db from '@adonisjs/lucid/services/db'
import app from '@adonisjs/core/services/app'
import type { ApiClient } from '@japa/api-client'
import { PairingFailures } from '#modules/devices/services/pairing_attempts'
import { testKeys } from '#tests/helpers/callers'

export async function clearDevices() {
  for (const table of ['device_sims', 'devices', 'pairing_codes']) await db.from(table).delete()
  await (await app.container.make(PairingFailures)).clear()
}

export async function pairingCode(client: ApiClient): Promise<string> {
  const response = await client.post('/api/v1/devices/pairing-codes').header('x-api-key', testKeys.admin)
  response.assertStatus(201)
  return response.body().code
}

/** Pairs a phone through the API, as the agent does; returns the device and its credential. */
export async function pairPhone(client: ApiClient, name = 'Test phone', sims: Array<Record<string, unknown>> = [{ slot: 0, operator: 'Orange' }]) {
  const code = await pairingCode(client)
  const response = await client.post('/api/v1/devices/pair').json({ code, name, model: 'Pixel 7', appVersion: '1.0.0', sims })
  response.assertStatus(201)
  return response.body() as { device: any; credential: string }
}
