import { defineLiveChannel, type LivePayload, type LiveTransmit } from '#core/live/live_channels'

/** The channel signed-in dashboards subscribe to for phones' changes (docs/live-channels.md, `devices`). */
export const devicesChannel = defineLiveChannel('devices', {
  type: 'object',
  required: ['type', 'deviceId', 'at'],
  additionalProperties: false,
  properties: {
    type: { enum: ['device.online', 'device.offline', 'device.low_battery', 'device.status', 'device.unpaired'] },
    deviceId: { type: 'string' },
    at: { type: 'string', format: 'date-time' },
  },
} as const)

/** The channel's name. */
export const DEVICES_CHANNEL = devicesChannel.name

export type LiveDeviceChange = LivePayload<typeof devicesChannel>

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
  transmit: () => Promise<LiveTransmit>,
  now: () => Promise<Date>
) {
  const send = async (payload: LiveDeviceChange) => devicesChannel.broadcast(await transmit(), payload)
  for (const type of ['device.online', 'device.offline', 'device.low_battery'] as const) {
    emitter.on(type, (event) => send({ type, deviceId: event.deviceId, at: event.at instanceof Date ? event.at.toISOString() : String(event.at) }))
  }
  // Battery and signal: an internal event (not a public one), shown live as `device.status`.
  emitter.on('devices:status_changed', async ({ deviceId }) => send({ type: 'device.status', deviceId: String(deviceId), at: (await now()).toISOString() }))
  // Unpaired (an internal event): every dashboard drops the phone from its list, online or not.
  emitter.on('devices:unpaired', async ({ deviceId }) => send({ type: 'device.unpaired', deviceId: String(deviceId), at: (await now()).toISOString() }))
}
