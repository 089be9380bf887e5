import { test } from '@japa/runner'
import emitter from '@adonisjs/core/services/emitter'
import type { PhoneAgent } from '../../../agent/src/phone_agent.js'
import { signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { useManualClock } from '#tests/helpers/clock'
import { clearDevices } from '#tests/helpers/devices'
import { openLiveStream } from '#tests/helpers/live_stream'
import { eventually, settle, simulatedPhone, useDeviceJobs } from '#tests/helpers/phones'
import { campaignJob } from '#modules/campaigns/jobs/campaign_job'
import { CampaignEngine } from '#modules/campaigns/services/campaign_engine'
import app from '@adonisjs/core/services/app'
import { clearCampaigns, createContacts, resetSendingSettings } from '#tests/functional/campaigns/campaign_helpers'

test.group('Campaigns with phones: recipients follow their messages to the end', (group) => {
  group.setup(() => useTestKeys())

  test('simulated phones send a campaign to completion; the live channel shows its progress and completion; the export lists every recipient', async ({ client, assert }) => {
    await clearCampaigns()
    await resetSendingSettings()
    await clearDevices()
    const manual = useManualClock('2026-06-10T10:00:00.000Z')
    const jobs = await useDeviceJobs(manual.clock)
    jobs.runner.register(campaignJob(() => app.container.make(CampaignEngine), manual.clock.now()))
    const agents: PhoneAgent[] = []
    const completed: unknown[] = []
    const onCompleted = (event: unknown) => void completed.push(event)
    emitter.on('campaign.completed' as any, onCompleted)
    const session = await signInAs(client, 'readonly')
    const live = await openLiveStream(client, session, 'campaigns')
    try {
      agents.push((await simulatedPhone(client, { name: 'One' })).agent, (await simulatedPhone(client, { name: 'Two' })).agent)
      const contacts = await createContacts(12)
      const created = await client.post('/api/v1/campaigns').header('x-api-key', testKeys.admin).json({ name: 'Phones', body: 'Hello {{firstName}}', audience: { contactIds: contacts.map(String) } })
      const id = created.body().id
      ;(await client.post(`/api/v1/campaigns/${id}/launch`).header('x-api-key', testKeys.admin)).assertStatus(200)

      for (let round = 0; round < 20 && !completed.length; round++) {
        await settle(manual.clock, jobs.runner, jobs.hub, agents)
        await manual.clock.advance(1000)
      }
      const campaign = (await client.get(`/api/v1/campaigns/${id}`).header('x-api-key', testKeys.read)).body()
      assert.equal(campaign.status, 'completed')
      assert.equal(campaign.counts.sent + campaign.counts.delivered, 12)
      assert.lengthOf(completed, 1)

      await eventually(() => live.events().some((event: any) => event.campaign?.status === 'completed'))
      const events = live.events() as any[]
      assert.isTrue(events.every((event) => event.type === 'campaign.changed' && event.campaign.id === id))
      assert.notProperty(events[0].campaign, 'body', 'ids and counts only')
      assert.isTrue(events.some((event) => event.campaign.status === 'running'))

      const csv = await client.get(`/api/v1/campaigns/${id}/recipients/export`).header('x-api-key', testKeys.read)
      csv.assertStatus(200)
      const lines = csv.text().trim().split('\n')
      assert.equal(lines[0], 'id,run,phone,contactId,status,errorCode,messageId,updatedAt')
      assert.lengthOf(lines, 13)
      const json = await client.get(`/api/v1/campaigns/${id}/recipients/export`).qs({ format: 'json' }).header('x-api-key', testKeys.read)
      assert.lengthOf(JSON.parse(json.text()), 12)

      // Recipients page in sending order with a cursor: each once.
      const seen: string[] = []
      let cursor: string | null = null
      do {
        const page: any = (await client.get(`/api/v1/campaigns/${id}/recipients`).qs(cursor ? { limit: 5, cursor } : { limit: 5 }).header('x-api-key', testKeys.read)).body()
        seen.push(...page.data.map((recipient: any) => recipient.id))
        cursor = page.nextCursor
      } while (cursor)
      assert.lengthOf(seen, 12)
      assert.deepEqual(seen, [...seen].sort((a, b) => Number(a) - Number(b)))
      assert.lengthOf(new Set(seen), 12)
    } finally {
      live.close()
      emitter.off('campaign.completed' as any, onCompleted)
      for (const agent of agents) await agent.disconnect()
      await jobs.hub.settled()
      await jobs.stop()
      manual.restore()
    }
  })
})
