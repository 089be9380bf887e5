import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import emitter from '@adonisjs/core/services/emitter'
import type { ApiClient } from '@japa/api-client'
import WebSocket from 'ws'
import { SettingsStore } from '#core/settings/settings_store'
import { settingsCatalogue } from '#core/settings/settings_catalogue'
import { useManualClock } from '#tests/helpers/clock'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearDevices, pairingCode } from '#tests/helpers/devices'
import { clearMessaging, sendAs } from '#tests/helpers/messages'
import { eventually, settle, simulatedPhone, useDeviceJobs } from '#tests/helpers/phones'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AGENT_VERSION, PhoneAgent } from '../../../agent/src/phone_agent.js'
import { HandledOrders } from '../../../agent/src/handled_orders.js'
import { SimulatorDriver } from '../../../agent/src/drivers/simulator.js'
import { answerContract } from '#tests/helpers/answer_contract'

/** Cases an outside check found: orders of unpaired phones, phones enabled again, late receipts. */
test.group('Dispatcher edges: unpairing, enabling, receipts, forced SIMs, inbound numbers', (group) => {
  let clock: ReturnType<typeof useManualClock>['clock']
  let jobs: Awaited<ReturnType<typeof useDeviceJobs>>
  let agents: PhoneAgent[] = []
  let sockets: WebSocket[] = []
  let settings: SettingsStore
  let events: ReturnType<typeof emitter.fake>

  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearMessaging()
    await clearDevices()
    settings = await app.container.make(SettingsStore)
    await settings.update({ sending: settingsCatalogue.defaults('sending'), reception: settingsCatalogue.defaults('reception') })
    const manual = useManualClock('2026-06-10T10:00:00.000Z')
    clock = manual.clock
    jobs = await useDeviceJobs(clock)
    agents = []
    sockets = []
    events = emitter.fake(['message.sent', 'message.delivered', 'message.failed', 'device.offline'])
    return async () => {
      for (const socket of sockets) socket.close()
      for (const agent of agents) await agent.disconnect()
      await jobs.hub.settled()
      emitter.restore()
      await jobs.stop()
      manual.restore()
      await settings.update({ sending: settingsCatalogue.defaults('sending'), reception: settingsCatalogue.defaults('reception') })
    }
  })

  const flush = () => settle(clock, jobs.runner, jobs.hub, agents)
  const message = async (client: ApiClient, id: string) => (await client.get(`/api/v1/messages/${id}`).header('x-api-key', testKeys.read)).body()
  async function phone(client: ApiClient, name: string, sims = [{ slot: 0 }]) {
    const created = await simulatedPhone(client, { name, sims })
    agents.push(created.agent)
    return created
  }
  /** A phone on a bare socket: records its orders and says only what the test makes it say. */
  async function rawPhone(client: ApiClient, name: string) {
    const code = await pairingCode(client)
    const paired = (await client.post('/api/v1/devices/pair').json({ code, name, sims: [{ slot: 0 }] })).body()
    const socket = new WebSocket(`${process.env.GATEWAY_PUBLIC_URL!.replace('http', 'ws')}/api/v1/devices/socket`, {
      headers: { authorization: `Bearer ${paired.credential}` },
    })
    sockets.push(socket)
    const orders: string[] = []
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data))
      if (frame.type === 'send') orders.push(frame.messageId)
    })
    const acks: string[] = []
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data))
      if (frame.type === 'ack') acks.push(frame.of)
    })
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)))
    await new Promise((resolve) => socket.once('open', resolve))
    let frames = 0
    const say = (frame: Record<string, unknown>) => {
      const id = `t${++frames}`
      socket.send(JSON.stringify({ id, ...frame }))
      return id
    }
    return { deviceId: String(paired.device.id), orders, say, acks, closed }
  }

  test('unpairing a phone sends its unaccepted orders to another at once; those forced to it fail', async ({ client, assert }) => {
    const mute = await rawPhone(client, 'Mute')
    await flush()
    const free = (await sendAs(client, { to: '+33612345678', body: 'any phone' })).body().accepted[0].id
    const forced = (await sendAs(client, { to: '+33612345678', body: 'this phone', deviceId: mute.deviceId })).body().accepted[0].id
    await flush()
    assert.sameMembers(mute.orders, [free, forced])

    const helper = await phone(client, 'Helper')
    await flush()
    assert.lengthOf(helper.driver.sent, 0)
    ;(await client.delete(`/api/v1/devices/${mute.deviceId}`).header('x-api-key', testKeys.admin)).assertStatus(204)
    await flush()
    // No 5-minute wait: the phone is gone.
    assert.deepEqual(helper.driver.sent.map((order) => order.messageId), [free])
    assert.deepInclude(await message(client, free), { status: 'delivered', deviceId: helper.deviceId })
    assert.deepInclude(await message(client, forced), { status: 'failed', errorCode: 'DEVICE_NOT_PAIRED' })
  })

  test('unpairing a phone fails at once what was forced to it and never ordered, without another send to wake the dispatcher', async ({ client, assert }) => {
    const idle = await phone(client, 'Idle')
    await flush()
    ;(await client.patch(`/api/v1/devices/${idle.deviceId}`).header('x-api-key', testKeys.admin).json({ enabled: false })).assertStatus(200)
    const id = (await sendAs(client, { to: '+33612345678', body: 'for this phone only', deviceId: idle.deviceId })).body().accepted[0].id
    await flush()
    assert.equal((await message(client, id)).status, 'queued')
    ;(await client.delete(`/api/v1/devices/${idle.deviceId}`).header('x-api-key', testKeys.admin)).assertStatus(204)
    await flush()
    assert.deepInclude(await message(client, id), { status: 'failed', errorCode: 'DEVICE_NOT_PAIRED' })
  })

  test('enabling a phone again sends what waited for it, without another send to wake the dispatcher', async ({ client, assert }) => {
    const only = await phone(client, 'Only')
    await flush()
    ;(await client.patch(`/api/v1/devices/${only.deviceId}`).header('x-api-key', testKeys.admin).json({ enabled: false })).assertStatus(200)
    const id = (await sendAs(client, { to: '+33612345678', body: 'wait for me', deviceId: only.deviceId })).body().accepted[0].id
    await flush()
    assert.equal((await message(client, id)).status, 'queued')
    ;(await client.patch(`/api/v1/devices/${only.deviceId}`).header('x-api-key', testKeys.admin).json({ enabled: true })).assertStatus(200)
    await flush()
    assert.equal((await message(client, id)).status, 'delivered')
  })

  test('a delivery receipt before the sent report counts as sent and delivered, each announced once', async ({ client, assert }) => {
    const raw = await rawPhone(client, 'Raw')
    await flush()
    const id = (await sendAs(client, { to: '+33612345678', body: 'receipt first' })).body().accepted[0].id
    await flush()
    assert.deepEqual(raw.orders, [id])
    raw.say({ type: 'delivered', messageId: id })
    await flush()
    const stored = await message(client, id)
    assert.deepInclude(stored, { status: 'delivered', attempts: 1, sentAt: clock.now().toISOString(), deliveredAt: clock.now().toISOString() })
    // The late sent report and the accepted one change nothing.
    raw.say({ type: 'accepted', messageId: id })
    raw.say({ type: 'sent', messageId: id })
    await flush()
    assert.deepInclude(await message(client, id), { status: 'delivered', attempts: 1 })
    events.assertEmittedCount('message.sent', 1)
    events.assertEmittedCount('message.delivered', 1)
  })

  test('a forced SIM slot the forced phone does not have fails the message (SIM_NOT_FOUND)', async ({ client, assert }) => {
    const single = await phone(client, 'Single SIM')
    await flush()
    const id = (await sendAs(client, { to: '+33612345678', body: 'slot 1', deviceId: single.deviceId, simSlot: 1 })).body().accepted[0].id
    await flush()
    assert.deepInclude(await message(client, id), { status: 'failed', errorCode: 'SIM_NOT_FOUND', attempts: 0 })
    assert.lengthOf(single.driver.sent, 0)
    events.assertEmittedCount('message.failed', 1)
  })

  test("an inbound sender in local dialled form joins the number's conversation; a name is kept as sent", async ({ client, assert }) => {
    await settings.update({ reception: { localPrefix: '+33' } })
    const only = await phone(client, 'Only')
    await flush()
    const conversationId = (await sendAs(client, { to: '+33612345678', body: 'Hello' })).body().accepted[0].conversationId
    await flush()
    only.driver.receive('06 12 34 56 78', 'Reply in local form', 0, 'local-1')
    only.driver.receive('MyBank', 'Your code', 0, 'alpha-1')
    // A short code would pass as a "possible" French number once completed: it stays as sent.
    only.driver.receive('36665', 'Short code', 0, 'short-1')
    await flush()
    const inbox = (await client.get(`/api/v1/conversations/${conversationId}/messages`).header('x-api-key', testKeys.read)).body().data
    assert.deepInclude(
      inbox.find((item: any) => item.direction === 'in'),
      { phone: '+33612345678', body: 'Reply in local form' }
    )
    const alpha = (await client.get('/api/v1/messages').qs({ direction: 'in' }).header('x-api-key', testKeys.read)).body().data
    assert.includeMembers(
      alpha.map((item: any) => item.phone),
      ['MyBank', '36665', '+33612345678']
    )
  })

  test('a prefix rule without simSlot takes the settings, and the routing mode chooses among its SIMs', async ({ client, assert }) => {
    const dual = await phone(client, 'Dual', [{ slot: 0 }, { slot: 1 }])
    const other = await phone(client, 'Other')
    const change = await client
      .patch('/api/v1/settings')
      .header('x-api-key', testKeys.admin)
      .json({ sending: { prefixRules: [{ prefix: '+3361', deviceId: dual.deviceId }] } })
    change.assertStatus(200)
    await flush()
    for (let index = 0; index < 4; index++) await sendAs(client, { to: '+33612345678', body: `rule ${index}` })
    await flush()
    assert.lengthOf(other.driver.sent, 0)
    assert.sameMembers(dual.driver.sent.map((order) => order.simSlot), [0, 1, 0, 1])
  })

  test('a setting error names the rule it is about', async ({ client, assert }) => {
    const refused = await client
      .patch('/api/v1/settings')
      .header('x-api-key', testKeys.admin)
      .json({ sending: { prefixRules: [{ prefix: '+33', deviceId: '1' }, { prefix: '33', deviceId: '1' }] } })
    refused.assertStatus(400)
    assert.equal(refused.body().error.details[0].field, 'sending.prefixRules.1.prefix')
    assert.match(refused.body().error.message, /^The sending\.prefixRules\.1\.prefix field/)
  })

  test("sent today counts SMS that left: a failed attempt's count is given back, and frees a quota", async ({ client, assert }) => {
    const failing = await simulatedPhone(client, { name: 'Failing', failureRate: 1 })
    agents.push(failing.agent)
    await flush()
    ;(await client.patch(`/api/v1/devices/${failing.deviceId}`).header('x-api-key', testKeys.admin).json({ sims: [{ slot: 0, dailyQuota: 1 }] })).assertStatus(200)
    const first = (await sendAs(client, { to: '+33612345678', body: 'fails' })).body().accepted[0].id
    const second = (await sendAs(client, { to: '+33612345679', body: 'next' })).body().accepted[0].id
    await flush()
    // Both were handed to the SIM in turn: the first failure gave its count back.
    assert.deepInclude(await message(client, first), { status: 'queued', attempts: 1, errorCode: 'GENERIC_FAILURE' })
    assert.deepInclude(await message(client, second), { status: 'queued', attempts: 1, errorCode: 'GENERIC_FAILURE' })
    assert.lengthOf(failing.driver.sent, 0)
    const device = (await client.get(`/api/v1/devices/${failing.deviceId}`).header('x-api-key', testKeys.read)).body()
    assert.equal(device.sims[0].sentToday, 0)
  })

  test("an order moved off a phone away for 5 minutes is not counted on that phone's SIM", async ({ client, assert }) => {
    const mute = await rawPhone(client, 'Mute')
    await flush()
    const id = (await sendAs(client, { to: '+33612345678', body: 'moved' })).body().accepted[0].id
    await flush()
    assert.deepEqual(mute.orders, [id])
    const counted = (await client.get(`/api/v1/devices/${mute.deviceId}`).header('x-api-key', testKeys.read)).body()
    assert.equal(counted.sims[0].sentToday, 1)
    sockets.pop()!.close()
    const helper = await phone(client, 'Helper')
    for (let minute = 0; minute < 6; minute++) {
      await clock.advance(60_000)
      helper.agent.heartbeat()
      await flush()
    }
    assert.deepInclude(await message(client, id), { status: 'delivered', deviceId: helper.deviceId })
    const muteAfter = (await client.get(`/api/v1/devices/${mute.deviceId}`).header('x-api-key', testKeys.read)).body()
    const helperAfter = (await client.get(`/api/v1/devices/${helper.deviceId}`).header('x-api-key', testKeys.read)).body()
    assert.equal(muteAfter.sims[0].sentToday, 0)
    assert.equal(helperAfter.sims[0].sentToday, 1)
  })

  test('a refused device credential gets the error format with a request id', async ({ assert }) => {
    const http = await import('node:http')
    const url = new URL('/api/v1/devices/socket', process.env.GATEWAY_PUBLIC_URL!)
    const answer = await new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const request = http.request(url, {
        headers: { 'connection': 'Upgrade', 'upgrade': 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'authorization': 'Bearer dev_1.nope' },
      })
      request.on('response', (response) => {
        let body = ''
        response.on('data', (chunk) => (body += chunk))
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }))
      })
      request.on('upgrade', () => reject(new Error('upgraded with a bad credential')))
      request.on('error', reject)
      request.end()
    })
    // Written on the raw socket, outside the router: checked against the document here.
    ;(await answerContract()).assertMatches({
      method: 'GET',
      url: url.href,
      status: answer.status,
      contentType: String(answer.headers['content-type']),
      body: JSON.parse(answer.body),
      hasBody: answer.body.length > 0,
      headers: answer.headers,
    })
    assert.equal(answer.status, 401)
    const error = JSON.parse(answer.body).error
    assert.equal(error.code, 'INVALID_DEVICE_CREDENTIAL')
    assert.match(error.requestId, /^[0-9a-f-]{36}$/)
    assert.equal(answer.headers['x-request-id'], error.requestId)
  })

  test('routing settings naming a phone that is not paired, or a SIM it lacks, are refused', async ({ client, assert }) => {
    const single = await phone(client, 'Single SIM')
    const refused = await client
      .patch('/api/v1/settings')
      .header('x-api-key', testKeys.admin)
      .json({
        sending: {
          priority: [{ deviceId: single.deviceId, simSlot: 0 }, { deviceId: '999999', simSlot: 0 }],
          prefixRules: [{ prefix: '+33', deviceId: single.deviceId, simSlot: 1 }, { prefix: '+44', deviceId: single.deviceId }],
        },
      })
    refused.assertStatus(400)
    assert.equal(refused.body().error.code, 'VALIDATION_ERROR')
    assert.deepEqual(
      refused.body().error.details.map((detail: { field: string; rule: string }) => [detail.field, detail.rule]),
      [
        ['sending.priority.1.deviceId', 'exists'],
        ['sending.prefixRules.0.simSlot', 'exists'],
      ]
    )
    assert.match(refused.body().error.message, /999999/)
    // Nothing of the refused change was kept.
    assert.deepEqual((await settings.get('sending')).priority, [])
    ;(await client
      .patch('/api/v1/settings')
      .header('x-api-key', testKeys.admin)
      .json({ sending: { priority: [{ deviceId: single.deviceId, simSlot: 0 }], prefixRules: [{ prefix: '+44', deviceId: single.deviceId }] } })
    ).assertStatus(200)
  })

  test('an agent restarted after a stop cut a send reports it OUTCOME_UNKNOWN: the message fails at once, never sent twice', async ({ client, assert, cleanup }) => {
    const folder = mkdtempSync(join(tmpdir(), 'agent-state-'))
    cleanup(() => rmSync(folder, { recursive: true, force: true }))
    const stateFile = join(folder, 'state.json')
    const code = await pairingCode(client)
    const slow = new SimulatorDriver({ latencyMs: 60_000 })
    const paired = await PhoneAgent.pair(process.env.GATEWAY_PUBLIC_URL!, code, { name: 'Cut', sims: slow.sims() })
    const first = new PhoneAgent({ gatewayUrl: process.env.GATEWAY_PUBLIC_URL!, credential: paired.credential, driver: slow, handled: new HandledOrders(stateFile) })
    await first.connect()
    await flush()
    const id = (await sendAs(client, { to: '+33612345678', body: 'cut mid-send' })).body().accepted[0].id
    await flush()
    assert.equal((await message(client, id)).status, 'dispatched')
    // The agent stops while its driver is still sending.
    await first.disconnect()
    await flush()

    const driver = new SimulatorDriver()
    const second = new PhoneAgent({ gatewayUrl: process.env.GATEWAY_PUBLIC_URL!, credential: paired.credential, driver, handled: new HandledOrders(stateFile) })
    agents.push(second)
    await second.connect()
    await flush()
    assert.deepInclude(await message(client, id), { status: 'failed', errorCode: 'OUTCOME_UNKNOWN', attempts: 1 })
    assert.lengthOf(driver.sent, 0)
    events.assertEmittedCount('message.failed', 1)
    // The agent said which version it is.
    const device = (await client.get(`/api/v1/devices/${paired.device.id}`).header('x-api-key', testKeys.read)).body()
    assert.equal(device.appVersion, AGENT_VERSION)
    // It may have left: its SIM's count of the day stays.
    assert.equal(device.sims[0].sentToday, 1)
  })

  test('an outcome whose report a stop kept from the gateway is reported when the agent starts again', async ({ client, assert, cleanup }) => {
    const folder = mkdtempSync(join(tmpdir(), 'agent-state-'))
    cleanup(() => rmSync(folder, { recursive: true, force: true }))
    const stateFile = join(folder, 'state.json')
    const code = await pairingCode(client)
    const slow = new SimulatorDriver({ latencyMs: 60_000 })
    const paired = await PhoneAgent.pair(process.env.GATEWAY_PUBLIC_URL!, code, { name: 'Unreported', sims: slow.sims() })
    const first = new PhoneAgent({ gatewayUrl: process.env.GATEWAY_PUBLIC_URL!, credential: paired.credential, driver: slow })
    await first.connect()
    await flush()
    const id = (await sendAs(client, { to: '+33612345678', body: 'sent, report lost' })).body().accepted[0].id
    await flush()
    assert.equal((await message(client, id)).status, 'dispatched')
    await first.disconnect()
    // What an agent killed between writing the outcome and the gateway's ack leaves behind.
    writeFileSync(stateFile, JSON.stringify({ orders: { [id]: ['sent', Date.now(), null, false] } }))

    const second = new PhoneAgent({
      gatewayUrl: process.env.GATEWAY_PUBLIC_URL!,
      credential: paired.credential,
      driver: new SimulatorDriver(),
      handled: new HandledOrders(stateFile),
    })
    agents.push(second)
    await second.connect()
    await flush()
    assert.deepInclude(await message(client, id), { status: 'sent', attempts: 1 })
    events.assertEmittedCount('message.sent', 1)
    // Acknowledged now: written down, so a third start does not report it again.
    const entry = () => JSON.parse(readFileSync(stateFile, 'utf8')).orders[id]
    await eventually(() => entry()[3] === true)
    assert.equal(entry()[0], 'sent')
  })

  test('unpairing fails the orders the phone took but never reported, and a connected phone goes offline once', async ({ client, assert }) => {
    const raw = await rawPhone(client, 'Taker')
    await flush()
    const id = (await sendAs(client, { to: '+33612345678', body: 'taken' })).body().accepted[0].id
    await flush()
    raw.say({ type: 'accepted', messageId: id })
    await flush()
    assert.equal((await message(client, id)).status, 'dispatched')
    ;(await client.delete(`/api/v1/devices/${raw.deviceId}`).header('x-api-key', testKeys.admin)).assertStatus(204)
    await flush()
    assert.equal(await raw.closed, 4001)
    assert.deepInclude(await message(client, id), { status: 'failed', errorCode: 'OUTCOME_UNKNOWN' })
    events.assertEmittedCount('message.failed', 1)
    events.assertEmittedCount('device.offline', 1)
    events.assertEmitted('device.offline', ({ data }) => data.deviceId === raw.deviceId && data.status === 'offline')
  })

  test('an inbound frame missing a field is still stored and acked, once; a time from the future is taken as now', async ({ client, assert }) => {
    const raw = await rawPhone(client, 'Inbound')
    await flush()
    const future = raw.say({ type: 'inbound', ref: 'r1', from: '+33612345678', body: 'From the future', receivedAt: '2030-01-01T00:00:00.000Z' })
    await flush()
    assert.include(raw.acks, future)
    const stored = (await client.get('/api/v1/messages').qs({ direction: 'in' }).header('x-api-key', testKeys.read)).body().data
    assert.deepInclude(stored[0], { body: 'From the future', createdAt: clock.now().toISOString() })

    // No ref and no from: the frame id stands in for ref, so the same frame repeated is stored once.
    const lacking = { id: 'same-frame', type: 'inbound', body: 'Who am I' }
    raw.say(lacking)
    raw.say(lacking)
    await flush()
    assert.include(raw.acks, 'same-frame')
    const after = (await client.get('/api/v1/messages').qs({ direction: 'in' }).header('x-api-key', testKeys.read)).body().data
    assert.lengthOf(after, 2)
    assert.deepInclude(after[0], { phone: 'unknown', body: 'Who am I' })
  })

  test('removing the per-minute limit frees the messages it held at once', async ({ client, assert }) => {
    const only = await phone(client, 'Only')
    await settings.update({ sending: { simPerMinuteLimit: 1 } })
    await flush()
    const ids: string[] = []
    for (let index = 0; index < 3; index++) ids.push((await sendAs(client, { to: '+33612345678', body: `r${index}` })).body().accepted[0].id)
    await flush()
    assert.lengthOf(only.driver.sent, 1)
    assert.deepInclude(await message(client, ids[2]), { holdReason: 'sim_rate' })
    ;(await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ sending: { simPerMinuteLimit: null } })).assertStatus(200)
    await flush()
    assert.lengthOf(only.driver.sent, 3)
    assert.deepInclude(await message(client, ids[2]), { status: 'delivered', holdReason: null, heldUntil: null })
  })
})
