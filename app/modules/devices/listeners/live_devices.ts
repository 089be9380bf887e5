import type { Broadcastable } from '@boringnode/transmit/types'

/** The Transmit channel signed-in dashboards subscribe to for phones' changes. */
export const DEVICES_CHANNEL = 'devices'

interface DeviceEvent {
  deviceId: string
  at: Date | string
}

/**
 * Mirrors the phones' public events on the dashboards' live stream, so the Phones page updates
 * without polling. Only what changed and which phone: the page reads the rest from the API.
 */
export function broadcastDeviceEvents(
  emitter: { on(name: 'device.online' | 'device.offline' | 'device.low_battery', listener: (event: DeviceEvent) => void): unknown },
  transmit: () => Promise<{ broadcast(channel: string, payload?: Broadcastable): void }>
) {
  for (const type of ['device.online', 'device.offline', 'device.low_battery'] as const) {
    emitter.on(type, async (event) => {
      const at = event.at instanceof Date ? event.at.toISOString() : String(event.at)
      ;(await transmit()).broadcast(DEVICES_CHANNEL, { type, deviceId: event.deviceId, at })
    })
  }
}
