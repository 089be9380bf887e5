import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import logger from '@adonisjs/core/services/logger'
import type { ApiClient } from '@japa/api-client'
import { JobRunner } from '#core/jobs/job_runner'
import type { ManualClock } from '#core/time/clock'
import { SettingsStore } from '#core/settings/settings_store'
import { testKeys } from '#tests/helpers/callers'
import { clearMessaging } from '#tests/helpers/messages'
import { CampaignEngine } from '#modules/campaigns/services/campaign_engine'
import { campaignJob } from '#modules/campaigns/jobs/campaign_job'

/**
 * Empties the campaigns' tables and Activity entries, the messaging tables and the contact
 * groups: a campaign test starts from none. Settings are left as they are (`resetSendingSettings`).
 */
export async function clearCampaigns() {
  await db.from('campaign_recipients').delete()
  await db.from('campaigns').delete()
  await db.from('activity_entries').where('source', 'campaigns').delete()
  await clearMessaging()
  // Groups outlive their contacts: a group name left by an earlier test would be taken.
  await db.from('contact_group_members').delete()
  await db.from('contact_groups').delete()
}

/**
 * Settings > Sending as a campaign test expects it unless the test is about it: the night pause
 * (on by default) and the send window off, the platform time zone UTC, so that a campaign sends
 * at whatever hour CI runs. `fields` sets the ones a test is about.
 */
export async function resetSendingSettings(fields: Record<string, unknown> = {}) {
  await (await app.container.make(SettingsStore)).update({
    sending: { nightPauseEnabled: false, campaignWindowEnabled: false, timezone: 'UTC', ...fields } as any,
  })
}

/** The campaign engine's job on a runner driven by the test's clock, put in the container so launches wake it. */
export async function useCampaignJob(clock: ManualClock) {
  await db.from('scheduled_jobs').delete()
  const runner = new JobRunner(clock, db, logger)
  runner.register(campaignJob(() => app.container.make(CampaignEngine), clock.now()))
  app.container.swap(JobRunner, () => runner)
  await runner.start()
  return {
    runner,
    /** Lets the passes due now run. */
    async settle() {
      await clock.advance(0)
      await runner.whenIdle()
    },
    async stop() {
      await runner.stop()
      app.container.restore(JobRunner)
    },
  }
}

export function admin(request: ReturnType<ApiClient['get']>) {
  return request.header('x-api-key', testKeys.admin)
}

export async function createContacts(count: number, options: { blacklistedEvery?: number } = {}): Promise<number[]> {
  const now = new Date().toISOString()
  const ids: number[] = []
  for (let start = 0; start < count; start += 400) {
    const rows = Array.from({ length: Math.min(400, count - start) }, (_, index) => {
      const n = start + index
      return {
        phone: `+3361${String(n).padStart(7, '0')}`,
        first_name: `First${n}`,
        last_name: null,
        tags: '[]',
        fields: JSON.stringify({ city: 'Paris' }),
        blacklisted: options.blacklistedEvery && n % options.blacklistedEvery === 0 ? 1 : 0,
        created_at: now,
        updated_at: now,
      }
    })
    await db.table('contacts').multiInsert(rows)
    const inserted = await db.from('contacts').whereIn('phone', rows.map((row) => row.phone)).orderBy('id').select('id')
    ids.push(...inserted.map((row) => row.id))
  }
  return ids
}

export async function createGroupOf(contactIds: number[], name = 'Everyone'): Promise<number> {
  const now = new Date().toISOString()
  const [group] = await db.table('contact_groups').insert({ name, created_at: now, updated_at: now }).returning('id')
  const groupId = typeof group === 'object' ? group.id : group
  for (let start = 0; start < contactIds.length; start += 400) {
    await db.table('contact_group_members').multiInsert(contactIds.slice(start, start + 400).map((contactId) => ({ group_id: groupId, contact_id: contactId, added_at: now })))
  }
  return groupId
}
