import { computed } from 'vue'
import { api, answer } from '../../api/client'
import type { components, operations } from '../../api/schema'
import { useLiveChannel, type LivePayload } from '../../live/live'
import { useLoaded } from '../../components/use_loaded'

export type Device = components['schemas']['Device']

/** What the gateway broadcasts on `devices` (app/modules/devices/listeners/live_devices.ts). */
/** device.status: its battery or signal changed; device.unpaired: it left the list. */
export type DeviceChange = LivePayload<'devices'>

/**
 * The paired phones as GET /devices answers them (newest first, up to 200), read again whenever
 * the gateway says one changed (online, offline, battery or signal, unpaired).
 */
export function useDevices(onChange?: (change: DeviceChange) => void) {
  const loaded = useLoaded(async () => (await answer(api.GET('/api/v1/devices', { params: { query: { limit: 200 } } }))).data)
  useLiveChannel(
    'devices',
    async (change) => {
      await loaded.reload()
      onChange?.(change)
    },
    () => void loaded.reload()
  )
  const devices = computed(() => loaded.data.value ?? [])
  const online = computed(() => devices.value.filter((device) => device.status === 'online').length)
  return { ...loaded, devices, online }
}

export type PairingCode = Awaited<ReturnType<typeof createPairingCode>>

export async function createPairingCode() {
  return answer(api.POST('/api/v1/devices/pairing-codes', { body: {} }))
}

export type DeviceChanges = operations['updateDevice']['requestBody']['content']['application/json']

export async function updateDevice(id: string, changes: DeviceChanges) {
  return answer(api.PATCH('/api/v1/devices/{id}', { params: { path: { id } }, body: changes }))
}

export async function unpairDevice(id: string) {
  return answer(api.DELETE('/api/v1/devices/{id}', { params: { path: { id } } }))
}
