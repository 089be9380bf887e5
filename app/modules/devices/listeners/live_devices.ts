import type { Broadcastable } from '@boringnode/transmit/types'

/** The Transmit channel signed-in dashboards subscribe to for phones' changes. */
export const DEVICES_CHANNEL = 'devices'

interface DeviceEvent {
  deviceId: string
  at: Date | string
}

type DeviceEvents = {
  'device.online': DeviceEvent
  'device.offline': DeviceEvent
  'device.low_battery': DeviceEvent
  'devices:status_changed': { deviceId: number }
  'devices:unpaired': { deviceId: number }
}

/**
 * Mirrors the phones' public events on the dashboards' live stream, so the Phones page updates
 * without polling. Only what changed and which phone: the page reads the rest from the API.
 */
export function broadcastDeviceEvents(
  emitter: { on<Name extends keyof DeviceEvents>(name: Name, listener: (event: DeviceEvents[Name]) => void): unknown },
  transmit: () => Promise<{ broadcast(channel: string, payload?: Broadcastable): void }>,
  now: () => Promise<Date>
) {
  const send = async (payload: { type: string; deviceId: string; at: string }) => (await transmit()).broadcast(DEVICES_CHANNEL, payload)
  for (const type of ['device.online', 'device.offline', 'device.low_battery'] as const) {
    emitter.on(type, (event) => send({ type, deviceId: event.deviceId, at: event.at instanceof Date ? event.at.toISOString() : String(event.at) }))
  }
  // Battery and signal: an internal event (not a public one), shown live as `device.status`.
  emitter.on('devices:status_changed', async ({ deviceId }) => send({ type: 'device.status', deviceId: String(deviceId), at: (await now()).toISOString() }))
  // Unpaired (an internal event): every dashboard drops the phone from its list, online or not.
  emitter.on('devices:unpaired', async ({ deviceId }) => send({ type: 'device.unpaired', deviceId: String(deviceId), at: (await now()).toISOString() }))
}
