import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import emitter from '@adonisjs/core/services/emitter'
import db from '@adonisjs/lucid/services/db'
import type { ApiClient } from '@japa/api-client'
import { useManualClock } from '#tests/helpers/clock'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearDevices, pairPhone } from '#tests/helpers/devices'
import { clearMessaging, sendAs } from '#tests/helpers/messages'
import { settle, simulatedPhone, useDeviceJobs } from '#tests/helpers/phones'
import { PhoneChannels } from '#modules/devices/channels/phone_channels'
import { InMemoryChannel } from '#tests/functional/devices/support/in_memory_channel'
import type { PhoneAgent } from '../../../agent/src/phone_agent.js'

/**
 * A second kind of phone, plugged in with one registration, goes through the same dispatcher,
 * routing, quotas and reports as the agent (docs/phone-channels.md). Real SQLite, real jobs on a
 * manual clock; only the phone is in memory.
 */
test.group('A second kind of phone (an in-memory channel)', (group) => {
  let clock: ReturnType<typeof useManualClock>['clock']
  let jobs: Awaited<ReturnType<typeof useDeviceJobs>>
  let memory: InMemoryChannel
  let agents: PhoneAgent[] = []
  let events: ReturnType<typeof emitter.fake>

  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearMessaging()
    await clearDevices()
    const manual = useManualClock(new Date())
    clock = manual.clock
    jobs = await useDeviceJobs(clock)
    agents = []
    events = emitter.fake(['message.sent', 'message.delivered', 'message.failed', 'message.received', 'device.online', 'device.offline', 'device.low_battery'])
    memory = new InMemoryChannel()
    // The one registration a new kind of phone needs.
    ;(await app.container.make(PhoneChannels)).register(memory)
    return async () => {
      for (const agent of agents) await agent.disconnect()
      await (await app.container.make(PhoneChannels)).unregister('memory')
      await jobs.hub.settled()
      emitter.restore()
      await jobs.stop()
      manual.restore()
    }
  })

  const flush = () => settle(clock, jobs.runner, jobs.hub, agents)
  const message = async (client: ApiClient, id: string) => (await client.get(`/api/v1/messages/${id}`).header('x-api-key', testKeys.read)).body()
  const device = async (client: ApiClient, id: number) => (await client.get(`/api/v1/devices/${id}`).header('x-api-key', testKeys.read)).body()

  /** A device of the in-memory kind: paired like any phone (a row and its SIMs), connected through the channel. */
  async function memoryPhone(client: ApiClient, name = 'Memory phone') {
    const paired = await pairPhone(client, name, [{ slot: 0, operator: 'Orange' }])
    const deviceId = Number(paired.device.id)
    await memory.connect(deviceId)
    await flush()
    return deviceId
  }

  test('a send to a device of that kind is ordered, sent and delivered; each event once', async ({ client, assert }) => {
    const deviceId = await memoryPhone(client)
    const accepted = await sendAs(client, { to: '+33612345678', body: 'Through another kind of phone' })
    accepted.assertStatus(202)
    const id = accepted.body().accepted[0].id
    await flush()

    const [{ orderedAt, ...order }] = memory.orders
    assert.deepEqual([order], [{ deviceId, messageId: Number(id), to: '+33612345678', text: 'Through another kind of phone', simSlot: 0 }])
    // The hand-out's instant is the one stored.
    assert.equal((await db.from('messages').where('id', id).first()).ordered_at, orderedAt.toISOString())
    const stored = await message(client, id)
    assert.deepInclude(stored, { status: 'delivered', deviceId: String(deviceId), simSlot: 0, attempts: 1 })
    assert.isString(stored.sentAt)
    events.assertEmittedCount('message.sent', 1)
    events.assertEmittedCount('message.delivered', 1)
    assert.equal((await device(client, deviceId)).sims[0].sentToday, 1)
  })

  test('its failure reports update the message like an agent’s: an unknown outcome fails at once and keeps the SIM’s count', async ({ client, assert }) => {
    const deviceId = await memoryPhone(client)
    memory.answer = { kind: 'fail', errorCode: 'outcome-unknown' }
    const unknown = (await sendAs(client, { to: '+33612345678', body: 'Unknown' })).body().accepted[0].id
    await flush()
    // The error code is made safe by the gateway, whatever the channel: OUTCOME_UNKNOWN.
    assert.deepInclude(await message(client, unknown), { status: 'failed', errorCode: 'OUTCOME_UNKNOWN' })
    events.assertEmittedCount('message.failed', 1)
    assert.equal((await device(client, deviceId)).sims[0].sentToday, 1)

    memory.answer = { kind: 'fail', errorCode: 'NO_SIGNAL' }
    const retried = (await sendAs(client, { to: '+33612345678', body: 'Retried' })).body().accepted[0].id
    await flush()
    // Queued again for a later attempt; the SIM's count is given back.
    assert.deepInclude(await message(client, retried), { status: 'queued', attempts: 1 })
    assert.equal((await device(client, deviceId)).sims[0].sentToday, 1)
  })

  test('routing and quotas treat it like any phone: round robin with an agent, a SIM at its quota is skipped', async ({ client, assert }) => {
    const memoryId = await memoryPhone(client)
    const agent = await simulatedPhone(client, { name: 'Agent phone' })
    agents.push(agent.agent)
    await flush()
    for (let index = 0; index < 4; index++) await sendAs(client, { to: '+33612345678', body: `spread ${index}` })
    await flush()
    assert.lengthOf(memory.orders, 2)
    assert.lengthOf(agent.driver.sent, 2)

    await client.patch(`/api/v1/devices/${memoryId}`).header('x-api-key', testKeys.admin).json({ sims: [{ slot: 0, dailyQuota: 3 }] })
    const forced = []
    for (let index = 0; index < 2; index++) {
      forced.push((await sendAs(client, { to: '+33612345678', body: `forced ${index}`, deviceId: String(memoryId) })).body().accepted[0].id)
    }
    await flush()
    assert.deepEqual([(await message(client, forced[0])).status, (await message(client, forced[1])).status], ['delivered', 'pending_quota_exceeded'])
    assert.lengthOf(memory.orders, 3)
  })

  test('online and offline: connecting, dropping, staying silent 5 minutes; orders it never took are sent again when it comes back', async ({ client, assert }) => {
    const deviceId = await memoryPhone(client)
    assert.equal((await device(client, deviceId)).status, 'online')
    events.assertEmittedCount('device.online', 1)

    await memory.drop(deviceId)
    await flush()
    assert.equal((await device(client, deviceId)).status, 'offline')
    events.assertEmittedCount('device.offline', 1)

    // Orders it never took are sent again when it comes back.
    await memory.connect(deviceId)
    memory.answer = { kind: 'silence' }
    const id = (await sendAs(client, { to: '+33612345678', body: 'Never taken' })).body().accepted[0].id
    await flush()
    // Ordered to it, never accepted: still queued, with the phone it waits for.
    assert.deepInclude(await message(client, id), { status: 'queued', deviceId: String(deviceId) })
    memory.answer = { kind: 'deliver' }
    await memory.drop(deviceId)
    await memory.connect(deviceId)
    await flush()
    assert.equal((await message(client, id)).status, 'delivered')
    assert.deepEqual(memory.orders.map((order) => order.messageId), [Number(id), Number(id)])
    // Sent again, it is the same hand-out.
    assert.deepEqual(memory.orders[1].orderedAt, memory.orders[0].orderedAt)

    // Silent 5 minutes: the gateway lets go of it through its channel.
    await clock.advance(5 * 60_000 + 31_000)
    await flush()
    assert.deepEqual(memory.letGo, [{ deviceId, reason: 'silent' }])
    assert.equal((await device(client, deviceId)).status, 'offline')
  })

  test('its inbound SMS and battery reports are stored like an agent’s; unpairing lets go of it', async ({ client, assert }) => {
    const deviceId = await memoryPhone(client)
    await memory.receive(deviceId, { ref: 'mem-1', from: '+33612345678', body: 'Hello', receivedAt: null })
    await memory.receive(deviceId, { ref: 'mem-1', from: '+33612345678', body: 'Hello', receivedAt: null })
    assert.equal(Number((await db.from('messages').where('direction', 'in').count('* as n').first()).n), 1)
    events.assertEmittedCount('message.received', 1)

    await memory.battery(deviceId, 12)
    assert.equal((await device(client, deviceId)).battery.level, 12)
    events.assertEmittedCount('device.low_battery', 1)

    ;(await client.delete(`/api/v1/devices/${deviceId}`).header('x-api-key', testKeys.admin)).assertStatus(204)
    await flush()
    assert.deepEqual(memory.letGo, [{ deviceId, reason: 'unpaired' }])
    assert.isFalse(memory.isConnected(deviceId))
  })
})
