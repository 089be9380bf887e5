import { test } from '@japa/runner'
import emitter from '@adonisjs/core/services/emitter'
import { useManualClock } from '#tests/helpers/clock'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearDevices } from '#tests/helpers/devices'
import { clearMessaging, sendAs } from '#tests/helpers/messages'
import { eventually, settle, simulatedPhone, useDeviceJobs } from '#tests/helpers/phones'
import type { PhoneAgent } from '../../../agent/src/phone_agent.js'

test.group('Phones end to end (simulated phones, controllable clock)', (group) => {
  let clock: ReturnType<typeof useManualClock>['clock']
  let jobs: Awaited<ReturnType<typeof useDeviceJobs>>
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
    return async () => {
      for (const agent of agents) await agent.disconnect()
      await jobs.hub.settled()
      emitter.restore()
      await jobs.stop()
      manual.restore()
    }
  })

  const flush = () => settle(clock, jobs.runner, jobs.hub, agents)
  const message = async (client: any, id: string) => (await client.get(`/api/v1/messages/${id}`).header('x-api-key', testKeys.read)).body()

  test('a send leaves through a connected phone: dispatched, sent, delivered, each event once', async ({ client, assert }) => {
    const phone = await simulatedPhone(client)
    agents.push(phone.agent)
    await flush()
    const accepted = await sendAs(client, { to: '+33612345678', body: 'Hello from the gateway' })
    accepted.assertStatus(202)
    const id = accepted.body().accepted[0].id
    await flush()

    assert.deepEqual(phone.driver.sent.map((order) => [order.messageId, order.to, order.text, order.simSlot]), [[id, '+33612345678', 'Hello from the gateway', 0]])
    const stored = await message(client, id)
    assert.deepInclude(stored, { status: 'delivered', deviceId: phone.deviceId, simSlot: 0, attempts: 1 })
    assert.isString(stored.sentAt)
    assert.isString(stored.deliveredAt)
    events.assertEmittedCount('message.sent', 1)
    events.assertEmitted('message.sent', ({ data }) => data.id === id && data.deviceId === phone.deviceId && data.status === 'sent')
    events.assertEmittedCount('message.delivered', 1)
    events.assertEmittedCount('device.online', 1)
    const device = (await client.get(`/api/v1/devices/${phone.deviceId}`).header('x-api-key', testKeys.read)).body()
    assert.equal(device.status, 'online')
    assert.equal(device.sims[0].sentToday, 1)
  })

  test('with no phone connected the send is still 202 and waits queued; it leaves when a phone comes', async ({ client, assert }) => {
    const accepted = await sendAs(client, { to: '+33612345678', body: 'Waiting' })
    accepted.assertStatus(202)
    await flush()
    const id = accepted.body().accepted[0].id
    assert.equal((await message(client, id)).status, 'queued')
    const phone = await simulatedPhone(client)
    agents.push(phone.agent)
    await flush()
    assert.equal((await message(client, id)).status, 'delivered')
    assert.lengthOf(phone.driver.sent, 1)
  })

  test('round robin spreads sends over the connected phones; deviceId and simSlot force the choice', async ({ client, assert }) => {
    const first = await simulatedPhone(client, { name: 'First' })
    const second = await simulatedPhone(client, { name: 'Second', sims: [{ slot: 0 }, { slot: 1 }] })
    agents.push(first.agent, second.agent)
    await flush()
    for (let index = 0; index < 6; index++) await sendAs(client, { to: '+33612345678', body: `spread ${index}` })
    await flush()
    // Three SIMs in all: two sends each.
    assert.equal(first.driver.sent.length, 2)
    assert.equal(second.driver.sent.length, 4)

    const forced = await sendAs(client, { to: '+33612345678', body: 'forced', deviceId: second.deviceId, simSlot: 1 })
    await flush()
    const order = second.driver.sent.find((sent) => sent.text === 'forced')!
    assert.equal(order.simSlot, 1)
    assert.deepInclude(await message(client, forced.body().accepted[0].id), { deviceId: second.deviceId, simSlot: 1 })

    const unknown = await sendAs(client, { to: '+33612345678', body: 'nowhere', deviceId: '999999' })
    unknown.assertStatus(202)
    await flush()
    assert.deepInclude(await message(client, unknown.body().accepted[0].id), { status: 'failed', errorCode: 'DEVICE_NOT_PAIRED' })
  })

  test('a failed attempt is retried after growing waits, then the message fails once with its errorCode', async ({ client, assert }) => {
    const phone = await simulatedPhone(client, { failureRate: 1 })
    agents.push(phone.agent)
    await flush()
    const id = (await sendAs(client, { to: '+33612345678', body: 'doomed' })).body().accepted[0].id
    await flush()
    let stored = await message(client, id)
    assert.deepInclude(stored, { status: 'queued', attempts: 1, errorCode: 'GENERIC_FAILURE' })
    assert.isString(stored.heldUntil)
    // The phone stays alive through the waits (a heartbeat a minute, as the agent does).
    for (const wait of [30_000, 120_000, 600_000]) {
      for (let left = wait; left > 0; left -= Math.min(left, 60_000)) {
        await clock.advance(Math.min(left, 60_000))
        phone.agent.heartbeat()
        await flush()
      }
    }
    stored = await message(client, id)
    assert.deepInclude(stored, { status: 'failed', attempts: 4, errorCode: 'GENERIC_FAILURE' })
    assert.isString(stored.failedAt)
    events.assertEmittedCount('message.failed', 1)
  })

  test('inbound SMS: stored once per phone reference in its conversation, unread, message.received once', async ({ client, assert }) => {
    const phone = await simulatedPhone(client)
    agents.push(phone.agent)
    await flush()
    const sent = await sendAs(client, { to: '+33612345678', body: 'Your table is ready', category: 'info' })
    await flush()
    phone.driver.receive('+33612345678', 'On my way', 0, 'sms-ref-1')
    phone.driver.receive('+33612345678', 'On my way', 0, 'sms-ref-1')
    await flush()
    const conversationId = sent.body().accepted[0].conversationId
    const inbox = await client.get(`/api/v1/conversations/${conversationId}/messages`).header('x-api-key', testKeys.read)
    const inbound = inbox.body().data.filter((item: any) => item.direction === 'in')
    assert.lengthOf(inbound, 1)
    assert.deepInclude(inbound[0], { body: 'On my way', phone: '+33612345678', category: 'info', deviceId: phone.deviceId })
    const conversation = (await client.get(`/api/v1/conversations/${conversationId}`).header('x-api-key', testKeys.read)).body()
    assert.deepInclude(conversation, { unreadCount: 1, state: 'awaiting_reply' })
    events.assertEmittedCount('message.received', 1)
    events.assertEmitted('message.received', ({ data }) => data.conversationId === conversationId && data.deviceId === phone.deviceId)

    // A number never written to: a new conversation, category conversation.
    phone.driver.receive('+447911123456', 'Hi', 0, 'sms-ref-2')
    await flush()
    const list = await client.get('/api/v1/messages').qs({ direction: 'in', phone: '+447911123456' }).header('x-api-key', testKeys.read)
    assert.equal(list.body().data[0].category, 'conversation')
  })

  test('a repeated report after a reconnect changes nothing twice; no SMS is sent twice', async ({ client, assert }) => {
    let release: () => void = () => {}
    const phone = await simulatedPhone(client)
    agents.push(phone.agent)
    await flush()
    // The next send hangs in the driver until released, while the socket drops.
    const original = phone.driver.send.bind(phone.driver)
    let sending = false
    phone.driver.send = async (order) => {
      sending = true
      await new Promise<void>((resolve) => (release = resolve))
      return original(order)
    }
    const id = (await sendAs(client, { to: '+33612345678', body: 'once only' })).body().accepted[0].id
    await clock.advance(0)
    await jobs.runner.whenIdle()
    // The phone is sending (the order reached it) when its socket drops.
    while (!sending) await new Promise((resolve) => setTimeout(resolve, 5))
    await phone.agent.disconnect()
    await jobs.hub.settled()
    release()
    await eventually(() => phone.driver.sent.length === 1)
    await phone.agent.connect()
    await flush()
    // A stray duplicate report, as after another reconnect.
    phone.agent.send({ type: 'sent', id: 'replayed-sent-1', messageId: id })
    phone.agent.send({ type: 'sent', id: 'replayed-sent-2', messageId: id })
    await flush()
    assert.lengthOf(phone.driver.sent, 1)
    assert.oneOf((await message(client, id)).status, ['sent', 'delivered'])
    events.assertEmittedCount('message.sent', 1)
  })

  test('silent 5 minutes: offline once; connecting again: online once', async ({ client, assert }) => {
    const phone = await simulatedPhone(client)
    agents.push(phone.agent)
    await flush()
    await clock.advance(4 * 60_000)
    await flush()
    events.assertNotEmitted('device.offline')
    await clock.advance(90_000)
    await flush()
    events.assertEmittedCount('device.offline', 1)
    const device = (await client.get(`/api/v1/devices/${phone.deviceId}`).header('x-api-key', testKeys.read)).body()
    assert.equal(device.status, 'offline')

    await phone.agent.connect()
    await flush()
    events.assertEmittedCount('device.online', 2)
    events.assertEmittedCount('device.offline', 1)
  })

  test('orders a phone never accepted go to another phone once it has been away 5 minutes', async ({ client, assert }) => {
    const { default: WebSocket } = await import('ws')
    const { pairingCode } = await import('#tests/helpers/devices')
    // A phone that takes orders and never answers them.
    const code = await pairingCode(client)
    const mute = (await client.post('/api/v1/devices/pair').json({ code, name: 'Mute', sims: [{ slot: 0 }] })).body()
    const socket = new WebSocket(`${process.env.GATEWAY_PUBLIC_URL!.replace('http', 'ws')}/api/v1/devices/socket`, {
      headers: { authorization: `Bearer ${mute.credential}` },
    })
    const orders: string[] = []
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data))
      if (frame.type === 'send') orders.push(frame.messageId)
    })
    await new Promise((resolve) => socket.once('open', resolve))
    await flush()
    const id = (await sendAs(client, { to: '+33612345678', body: 'needs a phone' })).body().accepted[0].id
    await flush()
    assert.deepEqual(orders, [id])
    socket.close()
    await flush()

    const helper = await simulatedPhone(client, { name: 'Helper' })
    agents.push(helper.agent)
    await flush()
    // Within 5 minutes the order still belongs to the mute phone (it may come back with it).
    assert.lengthOf(helper.driver.sent, 0)
    for (let minute = 0; minute < 6; minute++) {
      await clock.advance(60_000)
      helper.agent.heartbeat()
      await flush()
    }
    assert.deepEqual(helper.driver.sent.map((order) => order.messageId), [id])
    assert.deepInclude(await message(client, id), { status: 'delivered', deviceId: helper.deviceId })
  })

  test('a socket that closes makes the phone offline at once; battery at or under 15 % is announced once per crossing', async ({ client }) => {
    const phone = await simulatedPhone(client)
    agents.push(phone.agent)
    await flush()
    for (const level of [50, 15, 12, 10, 40, 14]) {
      phone.driver.setBattery(level)
      await phone.agent.reportStatus()
      await flush()
    }
    events.assertEmittedCount('device.low_battery', 2)
    await phone.agent.disconnect()
    await flush()
    events.assertEmittedCount('device.offline', 1)
  })

  test('an unknown credential is refused before the upgrade; unpairing closes the socket', async ({ client, assert }) => {
    const { PhoneAgent } = await import('../../../agent/src/phone_agent.js')
    const { SimulatorDriver } = await import('../../../agent/src/drivers/simulator.js')
    const stranger = new PhoneAgent({ gatewayUrl: process.env.GATEWAY_PUBLIC_URL!, credential: 'dev_1.' + 'x'.repeat(43), driver: new SimulatorDriver() })
    await assert.rejects(() => stranger.connect(), /401/)

    const phone = await simulatedPhone(client)
    agents.push(phone.agent)
    await flush()
    ;(await client.delete(`/api/v1/devices/${phone.deviceId}`).header('x-api-key', testKeys.admin)).assertStatus(204)
    await eventually(() => !phone.agent.connected)
    assert.isFalse(phone.agent.connected)
    const again = new PhoneAgent({ gatewayUrl: process.env.GATEWAY_PUBLIC_URL!, credential: phone.credential, driver: new SimulatorDriver() })
    await assert.rejects(() => again.connect(), /401/)
  })
})
