import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import { SettingsStore } from '#core/settings/settings_store'
import { useManualClock } from '#tests/helpers/clock'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearDevices } from '#tests/helpers/devices'
import { clearWebhooks } from '#tests/helpers/webhooks'
import { useDeviceJobs } from '#tests/helpers/phones'
import { clearAutomation, runs, useRuleEngine } from '#tests/helpers/automation'
import { campaignJob } from '#modules/campaigns/jobs/campaign_job'
import { CampaignEngine } from '#modules/campaigns/services/campaign_engine'
import { clearCampaigns, createContacts, resetSendingSettings } from '#tests/functional/campaigns/campaign_helpers'
import type { FakeSmsgateApp } from '#tests/functional/smsgate/support/fake_smsgate_app'
import { messageIdOf, pairedApp, settleWith } from '#tests/functional/smsgate/support/smsgate_phones'

const SENDER = '+33612345678'

/**
 * Everything above the phones, unchanged for SMSGate phones (docs/smsgate.md): a campaign sent
 * through two fake apps to completion, and a rule's reply to an SMS one of them received, sent
 * back through the same phone and SIM. Real HTTP, real SQLite, the real jobs on a ManualClock.
 */
test.group('SMSGate app: campaigns and rule replies end to end', (group) => {
  let clock: ReturnType<typeof useManualClock>['clock']
  let engine: Awaited<ReturnType<typeof useRuleEngine>>
  let jobs: Awaited<ReturnType<typeof useDeviceJobs>>
  let apps: FakeSmsgateApp[] = []
  const flush = () => settleWith(clock, engine.runner, jobs.hub, apps)

  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearCampaigns()
    await resetSendingSettings()
    await clearDevices()
    await clearWebhooks()
    await clearAutomation()
    const manual = useManualClock(new Date())
    clock = manual.clock
    engine = await useRuleEngine(clock)
    jobs = await useDeviceJobs(clock, engine.runner)
    engine.runner.register(campaignJob(() => app.container.make(CampaignEngine), clock.now()))
    apps = []
    return async () => {
      for (const phone of apps) phone.disconnect()
      await jobs.hub.settled()
      await engine.stop()
      manual.restore()
      await (await app.container.make(SettingsStore)).update({ reception: { helpKeywords: ['HELP'], helpReply: null } })
    }
  })

  const phone = async (client: Parameters<typeof pairedApp>[0], simCards?: Array<Record<string, unknown>>) => {
    const paired = await pairedApp(client, { connect: false })
    paired.nowMs = () => clock.nowMs()
    if (simCards) await paired.patchDevice(simCards)
    await paired.sync()
    await paired.connect()
    apps.push(paired)
    await flush()
    return paired
  }

  test('a campaign goes out through two SMSGate phones to completion, each recipient once', async ({ client, assert }) => {
    const [first, second] = [await phone(client), await phone(client)]
    const contacts = await createContacts(8)
    const created = await client.post('/api/v1/campaigns').header('x-api-key', testKeys.admin).json({ name: 'Through the app', body: 'Hello {{firstName}}', audience: { contactIds: contacts.map(String) } })
    created.assertStatus(201)
    const id = created.body().id
    ;(await client.post(`/api/v1/campaigns/${id}/launch`).header('x-api-key', testKeys.admin)).assertStatus(200)
    for (let round = 0; round < 20; round++) {
      await flush()
      const status = (await client.get(`/api/v1/campaigns/${id}`).header('x-api-key', testKeys.read)).body().status
      if (status === 'completed') break
      await clock.advance(1000)
    }
    const campaign = (await client.get(`/api/v1/campaigns/${id}`).header('x-api-key', testKeys.read)).body()
    assert.equal(campaign.status, 'completed')
    assert.equal(campaign.counts.delivered, 8)
    // Both phones sent; no message twice, on one phone or across the two.
    const sent = [...first.messages.values(), ...second.messages.values()]
    assert.isAbove(first.messages.size, 0)
    assert.isAbove(second.messages.size, 0)
    assert.lengthOf(sent, 8)
    assert.lengthOf(new Set(sent.map((copy) => messageIdOf(copy.id))), 8)
    assert.sameMembers(
      sent.map((copy) => copy.text),
      contacts.map((_, index) => `Hello First${index}`)
    )
  })

  test('an SMS "HELP" the app received gets the help reply, sent back through that phone and SIM', async ({ client, assert }) => {
    ;(await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ reception: { helpReply: 'Acme alerts: reply STOP to opt out.' } })).assertStatus(200)
    const smsgate = await phone(client, [
      { slotIndex: 0, simNumber: 1, carrierName: '**ange' },
      { slotIndex: 1, simNumber: 2, carrierName: '**fr' },
    ])
    const other = await phone(client)
    const received = await smsgate.postWebhook('sms:received', { message: 'Help', receivedAt: new Date(clock.nowMs()).toISOString(), messageId: '6f1d2a9c', sender: SENDER, simNumber: 2 })
    assert.equal(received.status, 204)
    for (let round = 0; round < 5 && !smsgate.messages.size; round++) {
      await engine.run()
      await flush()
    }

    const replies = [...smsgate.messages.values()]
    assert.deepEqual(
      replies.map((copy) => [copy.phoneNumbers, copy.text, copy.simNumber, copy.state]),
      [[[SENDER], 'Acme alerts: reply STOP to opt out.', 2, 'Delivered']]
    )
    assert.equal(other.messages.size, 0)
    const [run] = await runs(client, { kind: 'keyword' })
    assert.containsSubset(run, { kind: 'keyword', status: 'done', deviceId: smsgate.id, simSlot: 1 })
    const reply = (await client.get(`/api/v1/messages/${run.actions[0].messageId}`).header('x-api-key', testKeys.read)).body()
    assert.deepInclude(reply, { status: 'delivered', deviceId: smsgate.id, simSlot: 1 })
  })
})
