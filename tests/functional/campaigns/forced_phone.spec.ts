import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { useManualClock } from '#tests/helpers/clock'
import { clearDevices } from '#tests/helpers/devices'
import { settle, useDeviceJobs } from '#tests/helpers/phones'
import { campaignJob } from '#modules/campaigns/jobs/campaign_job'
import { CampaignEngine } from '#modules/campaigns/services/campaign_engine'
import { clearCampaigns, createContacts, resetSendingSettings } from '#tests/functional/campaigns/campaign_helpers'

test.group('Campaigns: a forced phone unpaired while the campaign runs', (group) => {
  group.setup(() => useTestKeys())

  test('its messages fail with DEVICE_NOT_PAIRED, the campaign completes with them failed, and they cannot be retried through that phone', async ({ client, assert }) => {
    await clearCampaigns()
    await resetSendingSettings()
    await clearDevices()
    const manual = useManualClock('2026-06-10T10:00:00.000Z')
    const jobs = await useDeviceJobs(manual.clock)
    jobs.runner.register(campaignJob(() => app.container.make(CampaignEngine), manual.clock.now()))
    try {
      // A paired phone that is offline: the campaign's messages wait for it (made one a second, so
      // the campaign is still making them when the phone is unpaired).
      const at = new Date().toISOString()
      const [row] = await db.table('devices').insert({ name: 'Forced', credential_sealed: 'x', enabled: true, status: 'offline', created_at: at, updated_at: at }).returning('id')
      const deviceId = String(typeof row === 'object' ? row.id : row)
      const contacts = await createContacts(3)
      const created = await client.post('/api/v1/campaigns').header('x-api-key', testKeys.admin).json({ name: 'Forced', body: 'Hi', audience: { contactIds: contacts.map(String) }, deviceId, throttlePerMinute: 60 })
      const id = created.body().id
      ;(await client.post(`/api/v1/campaigns/${id}/launch`).header('x-api-key', testKeys.admin)).assertStatus(200)
      await settle(manual.clock, jobs.runner, jobs.hub, [])
      await manual.clock.advance(1000)
      await settle(manual.clock, jobs.runner, jobs.hub, [])
      // One a second: one message waits for the phone, the others are not made yet.
      assert.deepInclude((await client.get(`/api/v1/campaigns/${id}`).header('x-api-key', testKeys.read)).body().counts, { queued: 1, pending: 2, failed: 0 })

      ;(await client.delete(`/api/v1/devices/${deviceId}`).header('x-api-key', testKeys.admin)).assertStatus(204)
      for (let round = 0; round < 5; round++) {
        await manual.clock.advance(1000)
        await settle(manual.clock, jobs.runner, jobs.hub, [])
      }
      const campaign = (await client.get(`/api/v1/campaigns/${id}`).header('x-api-key', testKeys.read)).body()
      assert.equal(campaign.status, 'completed')
      assert.deepInclude(campaign.counts, { failed: 3, queued: 0, pending: 0 })
      const recipients = (await client.get(`/api/v1/campaigns/${id}/recipients`).header('x-api-key', testKeys.read)).body().data
      assert.deepEqual([...new Set(recipients.map((recipient: any) => recipient.errorCode))], ['DEVICE_NOT_PAIRED'])

      const review = (await client.get(`/api/v1/campaigns/${id}/review`).header('x-api-key', testKeys.read)).body()
      assert.include(review.problems.map((problem: any) => problem.code), 'FORCED_PHONE_NOT_PAIRED')
      const retry = await client.post(`/api/v1/campaigns/${id}/retry-failed`).header('x-api-key', testKeys.admin)
      retry.assertStatus(422)
      assert.equal(retry.body().error.code, 'CAMPAIGN_NOT_READY')
    } finally {
      await jobs.stop()
      manual.restore()
    }
  })
})
