import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import { SettingsStore } from '#core/settings/settings_store'
import { settingsCatalogue } from '#core/settings/settings_catalogue'
import { useManualClock } from '#tests/helpers/clock'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearDevices } from '#tests/helpers/devices'
import { clearMessaging, sendAs } from '#tests/helpers/messages'
import { settle, simulatedPhone, useDeviceJobs } from '#tests/helpers/phones'
import type { PhoneAgent } from '../../../agent/src/phone_agent.js'

test.group('Dispatcher routing, quotas and holds', (group) => {
  let clock: ReturnType<typeof useManualClock>['clock']
  let jobs: Awaited<ReturnType<typeof useDeviceJobs>>
  let agents: PhoneAgent[] = []
  let settings: SettingsStore

  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearMessaging()
    await clearDevices()
    settings = await app.container.make(SettingsStore)
    await settings.update({ sending: settingsCatalogue.defaults('sending'), general: settingsCatalogue.defaults('general') })
    const manual = useManualClock('2026-06-10T23:50:00.000Z')
    clock = manual.clock
    jobs = await useDeviceJobs(clock)
    agents = []
    return async () => {
      for (const agent of agents) await agent.disconnect()
      await jobs.hub.settled()
      await jobs.stop()
      manual.restore()
      await settings.update({ sending: settingsCatalogue.defaults('sending'), general: settingsCatalogue.defaults('general') })
    }
  })

  const flush = () => settle(clock, jobs.runner, jobs.hub, agents)
  const message = async (client: any, id: string) => (await client.get(`/api/v1/messages/${id}`).header('x-api-key', testKeys.read)).body()
  async function phone(client: any, name: string, sims = [{ slot: 0 }]) {
    const created = await simulatedPhone(client, { name, sims })
    agents.push(created.agent)
    return created
  }
  /** Moves time with the phones alive (a heartbeat a minute, as the agent does). */
  async function advance(ms: number) {
    for (let left = ms; left > 0; left -= Math.min(left, 60_000)) {
      await clock.advance(Math.min(left, 60_000))
      for (const agent of agents) agent.heartbeat()
      await flush()
    }
  }

  test('priority order: the first usable SIM of the list takes everything', async ({ client, assert }) => {
    const first = await phone(client, 'First')
    const second = await phone(client, 'Second')
    await settings.update({ sending: { routingMode: 'priority', priority: [{ deviceId: second.deviceId, simSlot: 0 }, { deviceId: first.deviceId, simSlot: 0 }] } })
    await flush()
    for (let index = 0; index < 4; index++) await sendAs(client, { to: '+33612345678', body: `p${index}` })
    await flush()
    assert.equal(second.driver.sent.length, 4)
    assert.equal(first.driver.sent.length, 0)
  })

  test('least used today: the SIM that sent least takes the next', async ({ client, assert }) => {
    const first = await phone(client, 'First')
    await flush()
    for (let index = 0; index < 3; index++) await sendAs(client, { to: '+33612345678', body: `early ${index}` })
    await flush()
    const second = await phone(client, 'Second')
    await settings.update({ sending: { routingMode: 'least_used' } })
    await flush()
    for (let index = 0; index < 5; index++) {
      await sendAs(client, { to: '+33612345678', body: `late ${index}` })
      await flush()
    }
    assert.equal(first.driver.sent.length, 4)
    assert.equal(second.driver.sent.length, 4)
  })

  test('prefix rules send matching numbers through their phone and SIM; others route as usual', async ({ client, assert }) => {
    const french = await phone(client, 'French SIM')
    const british = await phone(client, 'British SIMs', [{ slot: 0 }, { slot: 1 }])
    await settings.update({ sending: { prefixRules: [{ prefix: '+44', deviceId: british.deviceId, simSlot: 1 }] } })
    await flush()
    for (let index = 0; index < 3; index++) await sendAs(client, { to: '+447911123456', body: `uk ${index}` })
    await flush()
    assert.deepEqual(british.driver.sent.map((order) => order.simSlot), [1, 1, 1])
    assert.equal(french.driver.sent.length, 0)
  })

  test('a SIM at its daily quota is skipped; all at quota: pending_quota_exceeded until raised or midnight', async ({ client, assert }) => {
    const only = await phone(client, 'Only')
    await client.patch(`/api/v1/devices/${only.deviceId}`).header('x-api-key', testKeys.admin).json({ sims: [{ slot: 0, dailyQuota: 2 }] })
    await flush()
    const ids: string[] = []
    for (let index = 0; index < 4; index++) ids.push((await sendAs(client, { to: '+33612345678', body: `q${index}` })).body().accepted[0].id)
    await flush()
    assert.equal(only.driver.sent.length, 2)
    assert.deepInclude(await message(client, ids[2]), { status: 'pending_quota_exceeded', attempts: 0 })

    // Raised: one more leaves.
    await client.patch(`/api/v1/devices/${only.deviceId}`).header('x-api-key', testKeys.admin).json({ sims: [{ slot: 0, dailyQuota: 3 }] })
    await flush()
    assert.equal(only.driver.sent.length, 3)
    assert.equal((await message(client, ids[3])).status, 'pending_quota_exceeded')

    // Midnight in the platform time zone (UTC here): a new day, a new count.
    await advance(11 * 60_000)
    assert.equal(only.driver.sent.length, 4)
    assert.equal((await message(client, ids[3])).status, 'delivered')
    const device = (await client.get(`/api/v1/devices/${only.deviceId}`).header('x-api-key', testKeys.read)).body()
    assert.equal(device.sims[0].sentToday, 1)
  })

  test('minimum interval per SIM holds the next message (sim_cadence, heldUntil) without spending an attempt', async ({ client, assert }) => {
    const only = await phone(client, 'Only')
    await settings.update({ sending: { simMinIntervalSeconds: 20 } })
    await flush()
    await sendAs(client, { to: '+33612345678', body: 'first' })
    const second = (await sendAs(client, { to: '+33612345678', body: 'second' })).body().accepted[0].id
    await flush()
    const held = await message(client, second)
    assert.deepInclude(held, { status: 'queued', holdReason: 'sim_cadence', attempts: 0 })
    assert.equal(held.heldUntil, new Date(clock.nowMs() + 20_000).toISOString())
    await advance(20_000)
    assert.deepInclude(await message(client, second), { status: 'delivered', holdReason: null, heldUntil: null })
    assert.equal(only.driver.sent.length, 2)
  })

  test('a minimum interval longer than a minute holds across a restart of the jobs', async ({ client, assert }) => {
    const only = await phone(client, 'Only')
    await settings.update({ sending: { simMinIntervalSeconds: 300 } })
    await flush()
    const firstAt = clock.nowMs()
    await sendAs(client, { to: '+33612345678', body: 'first' })
    await flush()
    assert.equal(only.driver.sent.length, 1)

    // The gateway restarts two minutes later: a new job runner, nothing kept in memory.
    await advance(120_000)
    await jobs.stop()
    jobs = await useDeviceJobs(clock)
    const second = (await sendAs(client, { to: '+33612345678', body: 'second' })).body().accepted[0].id
    await flush()
    assert.deepInclude(await message(client, second), { status: 'queued', holdReason: 'sim_cadence', heldUntil: new Date(firstAt + 300_000).toISOString() })
    assert.equal(only.driver.sent.length, 1)

    await advance(180_000)
    assert.deepInclude(await message(client, second), { status: 'delivered', holdReason: null })
    assert.equal(only.driver.sent.length, 2)
  })

  test('per-minute limit per SIM holds with sim_rate until a minute after the oldest', async ({ client, assert }) => {
    const only = await phone(client, 'Only')
    await settings.update({ sending: { simPerMinuteLimit: 2 } })
    await flush()
    const started = clock.nowMs()
    const ids: string[] = []
    for (let index = 0; index < 3; index++) ids.push((await sendAs(client, { to: '+33612345678', body: `r${index}` })).body().accepted[0].id)
    await flush()
    assert.equal(only.driver.sent.length, 2)
    const held = await message(client, ids[2])
    assert.deepInclude(held, { status: 'queued', holdReason: 'sim_rate', attempts: 0 })
    assert.equal(held.heldUntil, new Date(started + 60_000).toISOString())
    await advance(60_000)
    assert.equal(only.driver.sent.length, 3)
  })

  test("text options apply when the message leaves, with the phone's own settings over the general ones", async ({ client, assert }) => {
    const plain = await phone(client, 'Plain')
    await settings.update({ general: { stripDiacritics: true, trimWhitespace: true } })
    await client.patch(`/api/v1/devices/${plain.deviceId}`).header('x-api-key', testKeys.admin).json({ textOptions: { uppercase: true } })
    await flush()
    const accepted = await sendAs(client, { to: '+33612345678', body: '  Café  crème,   ça   va ?  ' })
    // The answer shows the text as submitted…
    assert.equal(accepted.body().accepted[0].body, '  Café  crème,   ça   va ?  ')
    assert.equal(accepted.body().accepted[0].encoding, 'ucs2')
    await flush()
    // …the message, once it left, as sent.
    const sent = await message(client, accepted.body().accepted[0].id)
    // Uppercased, then accents outside the GSM alphabet stripped (È → E; É and Ç are GSM).
    assert.equal(plain.driver.sent[0].text, 'CAFÉ CREME, ÇA VA ?')
    assert.deepInclude(sent, { body: 'CAFÉ CREME, ÇA VA ?', encoding: 'gsm7' })
  })
})

