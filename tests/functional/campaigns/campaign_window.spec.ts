import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { useManualClock } from '#tests/helpers/clock'
import { sendAs } from '#tests/helpers/messages'
import { clearCampaigns, createContacts, resetSendingSettings, useCampaignJob } from '#tests/functional/campaigns/campaign_helpers'

const statusesOf = async (campaignId: string) => {
  const rows = await db.from('messages').where('campaign_id', Number(campaignId)).select('status')
  return rows.reduce((counts: Record<string, number>, row) => ({ ...counts, [row.status]: (counts[row.status] ?? 0) + 1 }), {})
}

test.group('Campaigns: send window and night pause', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearCampaigns())

  test('the night pause holds the backlog at 21:00 Paris time and releases it at 08:00 across the spring-forward night; API sends are not held', async ({ client, assert }) => {
    await resetSendingSettings({ timezone: 'Europe/Paris', nightPauseEnabled: true, nightPauseStart: '21:00', nightPauseEnd: '08:00' })
    // 20:59 local (UTC+1) on 2026-03-28; the clocks go forward that night.
    const { clock, restore } = useManualClock('2026-03-28T19:59:00.000Z')
    const jobs = await useCampaignJob(clock)
    try {
      const contacts = await createContacts(300)
      const created = await client.post('/api/v1/campaigns').header('x-api-key', testKeys.admin).json({ name: 'Night', body: 'Hi', audience: { contactIds: contacts.map(String) }, throttlePerMinute: 60 })
      const id = created.body().id
      await client.post(`/api/v1/campaigns/${id}/launch`).header('x-api-key', testKeys.admin)
      await jobs.settle()
      await clock.advance(59_000)
      await jobs.runner.whenIdle()
      assert.deepEqual(await statusesOf(id), { queued: 59 })

      await clock.advance(1000) // 21:00 local
      await jobs.runner.whenIdle()
      assert.deepEqual(await statusesOf(id), { paused: 59 }, 'the backlog is held, nothing new is made')
      const held = (await client.get(`/api/v1/campaigns/${id}`).header('x-api-key', testKeys.read)).body()
      assert.equal(held.status, 'running')
      assert.equal(held.resumesAt, '2026-03-29T06:00:00.000Z', '08:00 local is 06:00Z after the change to UTC+2')
      assert.equal(held.counts.paused, 59)

      const api = await sendAs(client, { to: '+33700000001', body: 'Not a campaign' })
      api.assertStatus(202)
      assert.equal((await db.from('messages').where('id', Number(api.body().accepted[0].id)).first()).status, 'queued')

      await clock.advanceTo(new Date('2026-03-29T05:59:00.000Z'))
      await jobs.runner.whenIdle()
      assert.deepEqual(await statusesOf(id), { paused: 59 })

      await clock.advanceTo(new Date('2026-03-29T06:00:00.000Z'))
      await jobs.runner.whenIdle()
      assert.deepEqual(await statusesOf(id), { queued: 59 }, 'released at the opening, no burst')
      await clock.advance(10_000)
      await jobs.runner.whenIdle()
      assert.deepEqual(await statusesOf(id), { queued: 69 })
      const open = (await client.get(`/api/v1/campaigns/${id}`).header('x-api-key', testKeys.read)).body()
      assert.isNull(open.resumesAt)
    } finally {
      await jobs.stop()
      restore()
    }
  })

  test('outside the send window days a launched campaign waits and says when it resumes; a settings change is seen at once', async ({ client, assert }) => {
    await resetSendingSettings({ timezone: 'Europe/Paris', nightPauseEnabled: false, campaignWindowEnabled: true, campaignWindowDays: [1, 2, 3, 4, 5], campaignWindowStart: '09:00', campaignWindowEnd: '18:00' })
    // Saturday 2026-10-24 12:00 local; the clocks go back that night: Monday 09:00 local is 08:00Z.
    const { clock, restore } = useManualClock('2026-10-24T10:00:00.000Z')
    const jobs = await useCampaignJob(clock)
    try {
      const created = await client.post('/api/v1/campaigns').header('x-api-key', testKeys.admin).json({ name: 'Week', body: 'Hi', audience: { numbers: ['+33612345678'] } })
      await client.post(`/api/v1/campaigns/${created.body().id}/launch`).header('x-api-key', testKeys.admin)
      await jobs.settle()
      const waiting = (await client.get(`/api/v1/campaigns/${created.body().id}`).header('x-api-key', testKeys.read)).body()
      assert.equal(waiting.resumesAt, '2026-10-26T08:00:00.000Z')
      assert.equal(waiting.counts.pending, 1)
      // Opening the window every day releases it at once, not on Monday.
      const changed = await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ sending: { campaignWindowDays: [1, 2, 3, 4, 5, 6, 7] } })
      changed.assertStatus(200)
      await jobs.settle()
      assert.deepEqual(await statusesOf(created.body().id), { queued: 1 })
      assert.isNull((await client.get(`/api/v1/campaigns/${created.body().id}`).header('x-api-key', testKeys.read)).body().resumesAt)
    } finally {
      await jobs.stop()
      restore()
    }
  })
})
