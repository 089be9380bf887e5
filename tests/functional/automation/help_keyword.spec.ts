import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import { SettingsStore } from '#core/settings/settings_store'
import { useManualClock } from '#tests/helpers/clock'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearDevices } from '#tests/helpers/devices'
import { clearMessaging } from '#tests/helpers/messages'
import { clearWebhooks } from '#tests/helpers/webhooks'
import { eventually, settle, simulatedPhone, useDeviceJobs } from '#tests/helpers/phones'
import { clearAutomation, runs, useRuleEngine } from '#tests/helpers/automation'
import type { PhoneAgent } from '../../../agent/src/phone_agent.js'

const SENDER = '+33612345678'

test.group('The HELP keyword end to end (a simulated phone, controllable clock)', (group) => {
  let clock: ReturnType<typeof useManualClock>['clock']
  let engine: Awaited<ReturnType<typeof useRuleEngine>>
  let jobs: Awaited<ReturnType<typeof useDeviceJobs>>
  let agents: PhoneAgent[] = []

  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearMessaging()
    await clearDevices()
    await clearWebhooks()
    await clearAutomation()
    // The simulated phone dates its SMS with the real time: the test's clock starts there too.
    const manual = useManualClock(new Date())
    clock = manual.clock
    // The rules' job and the phones' jobs on one runner, so an inbound SMS wakes the rules and
    // their reply wakes the dispatcher.
    engine = await useRuleEngine(clock)
    jobs = await useDeviceJobs(clock, engine.runner)
    agents = []
    return async () => {
      for (const agent of agents) await agent.disconnect()
      await jobs.hub.settled()
      await engine.stop()
      manual.restore()
      await (await app.container.make(SettingsStore)).update({ reception: { helpKeywords: ['HELP'], helpReply: null } })
    }
  })

  const flush = () => settle(clock, engine.runner, jobs.hub, agents)

  test('an SMS "HELP" from a phone gets the help reply, sent back through the phone and SIM that received it', async ({ client, assert }) => {
    const patched = await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ reception: { helpReply: 'Acme alerts: reply STOP to opt out. Call 0800 000 000.' } })
    patched.assertStatus(200)
    assert.deepInclude(patched.body().reception, { helpKeywords: ['HELP'], helpReply: 'Acme alerts: reply STOP to opt out. Call 0800 000 000.' })
    const phone = await simulatedPhone(client, { sims: [{ slot: 0 }, { slot: 1 }] })
    agents.push(phone.agent)
    await flush()

    phone.driver.receive(SENDER, 'Help', 1)
    await eventually(async () => {
      await flush()
      return phone.driver.sent.length > 0
    })

    assert.deepEqual(
      phone.driver.sent.map((order) => [order.to, order.text, order.simSlot]),
      [[SENDER, 'Acme alerts: reply STOP to opt out. Call 0800 000 000.', 1]]
    )
    const [run] = await runs(client, { kind: 'keyword' })
    assert.containsSubset(run, { ruleId: null, ruleName: 'Help keyword HELP', kind: 'keyword', status: 'done', deviceId: phone.deviceId, simSlot: 1 })
    const reply = (await client.get(`/api/v1/messages/${run.actions[0].messageId}`).header('x-api-key', testKeys.read)).body()
    assert.deepInclude(reply, { status: 'delivered', deviceId: phone.deviceId, simSlot: 1 })
  })

  test('the help keyword\u2019s settings are in the settings contract, with their change schema', async ({ client, assert }) => {
    const document = (await client.get('/api-docs/openapi.json')).body()
    const reception = document.components.schemas.Settings.properties.reception
    assert.includeMembers(reception.required, ['helpKeywords', 'helpReply'])
    assert.containsSubset(reception.properties.helpKeywords, { type: 'array', maxItems: 20 })
    assert.include(JSON.stringify(reception.properties.helpReply.anyOf ?? reception.properties.helpReply), 'null')
    const refused = await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ reception: { helpKeywords: ['two words'] } })
    refused.assertStatus(400)
    assert.equal(refused.body().error.code, 'VALIDATION_ERROR')
    const defaults = (await client.get('/api/v1/settings').header('x-api-key', testKeys.admin)).body().reception
    assert.deepInclude(defaults, { helpKeywords: ['HELP'], helpReply: null })
  })
})
