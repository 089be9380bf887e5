import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import { DateTime } from 'luxon'
import type { JobDefinition } from '#core/jobs/job_runner'
import type { SettingsStore } from '#core/settings/settings_store'
import type { Dispatcher } from '#modules/devices/services/dispatcher'
import type { PhoneChannels } from '#modules/devices/channels/phone_channels'
import { type PhonePresence, SILENCE_MS } from '#modules/devices/services/phone_presence'
import { affectedRows } from '#core/database/affected_rows'

export const DISPATCH_JOB = 'devices.dispatch'
export const LIVENESS_JOB = 'devices.liveness'
export const QUOTA_DAY_JOB = 'devices.quota-day'
const LIVENESS_EVERY_MS = 30_000

export function dispatchJob(dispatcher: () => Promise<Dispatcher>): JobDefinition {
  return { name: DISPATCH_JOB, run: async () => (await dispatcher()).pass() }
}

/**
 * A phone silent for 5 minutes is offline (its channel lets go of it); the orders it never
 * accepted go back to the queue for another phone.
 */
export function livenessJob(deps: {
  phones: () => Promise<PhoneChannels>
  presence: () => Promise<PhonePresence>
  dispatcher: () => Promise<Dispatcher>
}): JobDefinition {
  return {
    name: LIVENESS_JOB,
    async run(now) {
      const [phones, presence, dispatcher] = [await deps.phones(), await deps.presence(), await deps.dispatcher()]
      const silentSince = now.getTime() - SILENCE_MS
      const online = await db.from('devices').where('status', 'online').select('id')
      for (const { id } of online) {
        if ((presence.lastFrameAt.get(id) ?? 0) > silentSince) continue
        void phones.disconnect(id, 'silent')
        const updated = await db.from('devices').where('id', id).where('status', 'online').update({ status: 'offline' })
        if (affectedRows(updated)) {
          await emitter.emit('device.offline', { id: String(id), deviceId: String(id), status: 'offline', at: now })
        }
      }
      // Orders of phones away for 5 minutes return to the queue.
      const offline = await db.from('devices').where('status', 'offline').select('id')
      for (const { id } of offline) {
        if ((presence.lastFrameAt.get(id) ?? 0) > silentSince || phones.isConnected(id)) continue
        await dispatcher.requeueOrdersOf(id, new Date(silentSince))
      }
      return new Date(now.getTime() + LIVENESS_EVERY_MS)
    },
  }
}

/**
 * At midnight in the platform time zone every SIM's daily count starts again: messages that
 * waited for a quota (pending_quota_exceeded) go back to the queue.
 */
export function quotaDayJob(deps: { dispatcher: () => Promise<Dispatcher>; settings: () => Promise<SettingsStore> }): JobDefinition {
  return {
    name: QUOTA_DAY_JOB,
    async run(now) {
      const released = await (await deps.dispatcher()).releaseQuotaWaits()
      if (released) await emitter.emit('messages:queued', { count: released })
      const { timezone } = await (await deps.settings()).get('sending')
      return DateTime.fromJSDate(now).setZone(timezone).startOf('day').plus({ days: 1 }).toJSDate()
    },
  }
}
