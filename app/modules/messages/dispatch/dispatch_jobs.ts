import { DateTime } from 'luxon'
import emitter from '@adonisjs/core/services/emitter'
import type { JobDefinition } from '#core/jobs/job_runner'
import type { SettingsStore } from '#core/settings/settings_store'
import type { Dispatcher } from '#modules/messages/dispatch/dispatcher'
import type { MessageLedger } from '#modules/messages/services/message_ledger'

// The names are kept from when the devices module ran these jobs: each gateway's
// scheduled_jobs table keeps their due times under them.
export const DISPATCH_JOB = 'devices.dispatch'
export const QUOTA_DAY_JOB = 'devices.quota-day'

export function dispatchJob(dispatcher: () => Promise<Dispatcher>): JobDefinition {
  return { name: DISPATCH_JOB, run: async () => (await dispatcher()).pass() }
}

/**
 * At midnight in the platform time zone every SIM's daily count starts again: messages that
 * waited for a quota (pending_quota_exceeded) go back to the queue.
 */
export function quotaDayJob(deps: { ledger: () => Promise<MessageLedger>; settings: () => Promise<SettingsStore> }): JobDefinition {
  return {
    name: QUOTA_DAY_JOB,
    async run(now) {
      const released = await (await deps.ledger()).releaseQuotaWaits(now)
      if (released) await emitter.emit('messages:queued', { count: released })
      const { timezone } = await (await deps.settings()).get('sending')
      return DateTime.fromJSDate(now).setZone(timezone).startOf('day').plus({ days: 1 }).toJSDate()
    },
  }
}
