import emitter from '@adonisjs/core/services/emitter'
import type { JobDefinition } from '#core/jobs/job_runner'
import type { PhoneChannels } from '#modules/devices/channels/phone_channels'
import type { OrderBook } from '#modules/devices/services/order_book'
import { type PhonePresence, SILENCE_MS } from '#modules/devices/services/phone_presence'
import type { DeviceStore } from '#modules/devices/stores/device_store'

export const LIVENESS_JOB = 'devices.liveness'
const LIVENESS_EVERY_MS = 30_000

/**
 * A phone silent for 5 minutes is offline (its channel lets go of it); the orders it never
 * accepted go back to the queue for another phone (the order book decides), and its channel is
 * told which (`withdraw`), so that a phone that still holds them drops them.
 */
export function livenessJob(deps: {
  phones: () => Promise<PhoneChannels>
  presence: () => Promise<PhonePresence>
  orderBook: () => Promise<OrderBook>
  devices: () => Promise<DeviceStore>
}): JobDefinition {
  return {
    name: LIVENESS_JOB,
    async run(now) {
      const [phones, presence, orderBook, devices] = [await deps.phones(), await deps.presence(), await deps.orderBook(), await deps.devices()]
      const silentSince = now.getTime() - SILENCE_MS
      for (const id of await devices.onlineIds()) {
        if ((presence.lastFrameAt.get(id) ?? 0) > silentSince) continue
        void phones.disconnect(id, 'silent')
        if (await devices.markOffline(id)) {
          await emitter.emit('device.offline', { id: String(id), deviceId: String(id), status: 'offline', at: now })
        }
      }
      // Orders of phones away for 5 minutes return to the queue.
      for (const id of await devices.offlineIds()) {
        if ((presence.lastFrameAt.get(id) ?? 0) > silentSince || phones.isConnected(id)) continue
        phones.withdraw(id, await orderBook.phoneAway(id, new Date(silentSince)))
      }
      return new Date(now.getTime() + LIVENESS_EVERY_MS)
    },
  }
}
