import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { useManualClock } from '#tests/helpers/clock'
import { clearCampaigns, createContacts, resetSendingSettings, useCampaignJob } from '#tests/functional/campaigns/campaign_helpers'
import { RecipientStatusFollower } from '#modules/campaigns/listeners/recipient_statuses'

/** The running gateway's recipients following their messages: stopped and started again like a server restart's. */
function follower(): Promise<RecipientStatusFollower> {
  return app.container.make(RecipientStatusFollower)
}

async function messagesOf(campaignId: string) {
  return db.from('messages').where('campaign_id', Number(campaignId)).select('id', 'phone', 'status')
}

test.group('Campaigns: a restart loses and duplicates nothing', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearCampaigns()
    await resetSendingSettings()
  })

  test('running, paused and cancelled campaigns carry on after the job and the listeners stop and start again', async ({ client, assert }) => {
    const { clock, restore } = useManualClock('2026-01-15T10:00:00.000Z')
    let jobs = await useCampaignJob(clock)
    try {
      const contacts = await createContacts(120)
      const make = async (name: string, slice: number[]) => {
        const created = await client.post('/api/v1/campaigns').header('x-api-key', testKeys.admin).json({ name, body: 'Hi', audience: { contactIds: slice.map(String) }, throttlePerMinute: 60 })
        await client.post(`/api/v1/campaigns/${created.body().id}/launch`).header('x-api-key', testKeys.admin)
        return created.body().id as string
      }
      const running = await make('Running', contacts.slice(0, 40))
      const paused = await make('Paused', contacts.slice(40, 80))
      const cancelled = await make('Cancelled', contacts.slice(80, 120))
      await jobs.settle()
      await clock.advance(30_000)
      await jobs.runner.whenIdle()
      await client.post(`/api/v1/campaigns/${paused}/pause`).header('x-api-key', testKeys.admin)
      // A cancel cut short after the campaign row changed: its messages and pending rows still wait.
      await db.from('campaigns').where('id', Number(cancelled)).update({ status: 'cancelled', settled: 0 })
      // A status change whose event never came (the process died between the two).
      const lost = (await messagesOf(running))[0]
      await db.from('messages').where('id', lost.id).update({ status: 'failed' })

      // Stop everything the process runs, then start it again on the same database.
      await jobs.stop()
      ;(await follower()).stop()
      await clock.advance(5_000)
      ;(await follower()).start()
      jobs = await useCampaignJob(clock)
      await jobs.settle()
      await clock.advance(60_000)
      await jobs.runner.whenIdle()

      const sent = await messagesOf(running)
      assert.lengthOf(sent, 40, 'every recipient of the running campaign has exactly one message')
      assert.equal(new Set(sent.map((message) => message.phone)).size, 40)
      const recipients = await db.from('campaign_recipients').where('campaign_id', Number(running)).select('message_id', 'status')
      assert.isTrue(recipients.every((recipient) => recipient.message_id !== null))
      assert.equal(recipients.find((recipient) => recipient.message_id === lost.id)!.status, 'failed', 'reconciled from the ledger')

      const held = await messagesOf(paused)
      assert.lengthOf(held, 30, 'nothing new for the paused campaign')
      assert.isTrue(held.every((message) => message.status === 'paused'))

      const withdrawn = await messagesOf(cancelled)
      assert.lengthOf(withdrawn, 30)
      assert.isTrue(withdrawn.every((message) => message.status === 'cancelled'))
      const cancelledCampaign = (await client.get(`/api/v1/campaigns/${cancelled}`).header('x-api-key', testKeys.read)).body()
      assert.deepInclude(cancelledCampaign.counts, { pending: 0, cancelled: 40 })

      // The running campaign, and it alone, is noted once as carrying on after the restart.
      const noted = await client.get('/api/v1/activity').qs({ kind: 'campaign.resumed_after_restart' }).header('x-api-key', testKeys.read)
      noted.assertStatus(200)
      assert.deepEqual(
        noted.body().data.map((entry: any) => [entry.source, entry.message, entry.actor]),
        [['campaigns', 'Campaign "Running" resumed after a gateway restart', null]]
      )
    } finally {
      await jobs.stop()
      ;(await follower()).start()
      restore()
    }
  })
})
