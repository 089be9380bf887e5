import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import type { ApiClient } from '@japa/api-client'
import { testKeys } from '#tests/helpers/callers'
import { sendAs } from '#tests/helpers/messages'
import { eventually } from '#tests/helpers/phones'
import { SmsgateChannel } from '#modules/smsgate/channel/smsgate_channel'
import { flushLogFile } from '#core/logging/log_file'
import { FakeSmsgateApp } from '#tests/functional/smsgate/support/fake_smsgate_app'
import { copiesOf, messageIdOf, pairedApp, useSmsgateGateway } from '#tests/functional/smsgate/support/smsgate_phones'

/**
 * A send through the SMSGate app end to end (docs/smsgate.md): a real `POST /api/v1/messages`,
 * the real dispatcher and jobs on a ManualClock, real SQLite, and a fake app over real HTTP that
 * reads its event stream as it comes and reports as the app does.
 */
test.group('SMSGate app: messages over its event stream', (group) => {
  const world = useSmsgateGateway(group, ['message.sent', 'message.delivered', 'message.failed', 'device.online', 'device.offline'])
  const flush = world.flush
  const message = async (client: ApiClient, id: string) => (await client.get(`/api/v1/messages/${id}`).header('x-api-key', testKeys.read)).body()
  const device = async (client: ApiClient, id: string) => (await client.get(`/api/v1/devices/${id}`).header('x-api-key', testKeys.read)).body()
  const phone = async (client: ApiClient) => {
    const paired = await pairedApp(client)
    world.apps.push(paired)
    await flush()
    return paired
  }

  test('a send is pushed on the stream, fetched, and reported to delivered; message.sent and message.delivered once each', async ({ client, assert }) => {
    const smsgate = await phone(client)
    assert.equal(smsgate.streamStatus, 200)
    assert.match(String(smsgate.streamContentType), /^text\/event-stream/)
    assert.equal((await device(client, smsgate.id)).status, 'online')
    world.events.assertEmittedCount('device.online', 1)

    const accepted = await sendAs(client, { to: '+33612345678', body: 'Through the SMSGate app' })
    accepted.assertStatus(202)
    const id = accepted.body().accepted[0].id
    await flush()

    assert.deepEqual(smsgate.events, [{ event: 'MessageEnqueued', data: 'null' }])
    assert.deepEqual([...smsgate.messages.values()].map(({ id: appId, phoneNumbers, simNumber, text }) => ({ messageId: messageIdOf(appId), phoneNumbers, simNumber, text })), [
      { messageId: id, phoneNumbers: ['+33612345678'], simNumber: 1, text: 'Through the SMSGate app' },
    ])
    const stored = await message(client, id)
    assert.deepInclude(stored, { status: 'delivered', deviceId: smsgate.id, simSlot: 0, attempts: 1 })
    world.events.assertEmittedCount('message.sent', 1)
    world.events.assertEmittedCount('message.delivered', 1)
    // Reported: no longer listed.
    assert.deepEqual((await smsgate.call('GET', '/message')).json, [])
  })

  test('GET /message lists the orders it has not reported in the app’s format, newest first unless fifo; listed is taken', async ({ client, assert }) => {
    const smsgate = await phone(client)
    smsgate.behaviour = 'silence'
    smsgate.fetchOnEvents = false
    const first = (await sendAs(client, { to: '+33612345678', body: 'First' })).body().accepted[0].id
    await flush()
    await world.clock.advance(1000)
    const second = (await sendAs(client, { to: '+33698765432', body: 'Second' })).body().accepted[0].id
    await flush()

    // Not fetched yet: ordered to the phone, not taken.
    assert.equal((await message(client, first)).status, 'queued')
    const lifo = await smsgate.call('GET', '/message?order=lifo')
    assert.equal(lifo.status, 200)
    assert.deepEqual(lifo.json.map((item: any) => messageIdOf(item.id)), [second, first])
    const [item] = lifo.json
    assert.match(item.id, new RegExp(`^${second}-[0-9a-z]+$`))
    assert.deepEqual(item, {
      id: item.id,
      message: 'Second',
      textMessage: { text: 'Second' },
      phoneNumbers: ['+33698765432'],
      simNumber: 1,
      withDeliveryReport: true,
      state: 'Pending',
      createdAt: item.createdAt,
    })
    assert.match(item.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    // Listed is taken, stored before the answer: the app sends what it fetched, so the messages
    // are the phone's now (one attempt each), and never go to another phone.
    assert.deepInclude(await message(client, first), { status: 'dispatched', attempts: 1 })
    assert.deepInclude(await message(client, second), { status: 'dispatched', attempts: 1 })
    // Listed again, with the same ids, until reported (an answer lost on the way costs nothing).
    const fifo = await smsgate.call('GET', '/message?order=fifo')
    assert.deepEqual(fifo.json.map((entry: any) => entry.id), lifo.json.map((entry: any) => entry.id).reverse())
    assert.deepInclude(await message(client, first), { status: 'dispatched', attempts: 1 })

    // The app keeps what it fetched; at its next fetch it reports what it already has as it
    // stands (Pending): listed no more.
    await smsgate.fetchMessages()
    await smsgate.fetchMessages()
    await flush()
    assert.deepEqual([(await message(client, first)).status, (await message(client, second)).status], ['dispatched', 'dispatched'])
    assert.deepEqual((await smsgate.call('GET', '/message')).json, [])
  })

  test('a repeated and out-of-order report changes nothing twice', async ({ client, assert }) => {
    const smsgate = await phone(client)
    smsgate.behaviour = 'silence'
    const id = (await sendAs(client, { to: '+33612345678', body: 'Reported out of order' })).body().accepted[0].id
    await flush()

    const [{ id: appId }] = copiesOf(smsgate, id)
    const report = (state: string) => smsgate.call('PATCH', '/message', { body: [{ id: appId, state, recipients: [{ phoneNumber: '+33612345678', state }], states: { [state]: '2026-08-01T18:00:03.511+07:00' } }] })
    for (const state of ['Delivered', 'Sent', 'Processed', 'Delivered', 'Pending', 'Sent']) assert.equal((await report(state)).status, 204, state)
    await flush()

    assert.deepInclude(await message(client, id), { status: 'delivered', attempts: 1 })
    world.events.assertEmittedCount('message.sent', 1)
    world.events.assertEmittedCount('message.delivered', 1)
    // An id that is not one of this phone's changes nothing, and is still answered 204.
    assert.equal((await smsgate.call('PATCH', '/message', { body: [{ id: 'PyDmBQZZXYmyxMwED8Fzy', state: 'Sent', recipients: [{ phoneNumber: '+1555', state: 'Sent' }] }] })).status, 204)
  })

  test('a failure carries a short code from the app’s reason: no service is NO_SIGNAL, and the message is queued again', async ({ client, assert }) => {
    const smsgate = await phone(client)
    smsgate.behaviour = 'fail'
    const id = (await sendAs(client, { to: '+33612345678', body: 'No service' })).body().accepted[0].id
    await flush()
    const stored = await message(client, id)
    assert.equal(stored.attempts, 1)
    assert.equal(stored.errorCode, 'NO_SIGNAL')
    world.events.assertEmittedCount('message.sent', 0)
    // The app's own words are in the technical log, beside the code the message keeps.
    flushLogFile()
    const logged = (await client.get('/api/v1/logs/technical').qs({ limit: 200 }).header('x-api-key', testKeys.admin)).body().data
    const line = logged.find((entry: any) => entry.message === 'smsgate: the phone failed a message')
    assert.exists(line)
    assert.include(JSON.stringify(line), 'RESULT_ERROR_NO_SERVICE')

    // The app never sends an id it has failed: the retry, on the same phone, is a new id, and
    // goes. The app repeating its old failure then changes nothing.
    smsgate.behaviour = 'deliver'
    await world.clock.advance(5 * 60_000)
    await flush()
    const copies = copiesOf(smsgate, id)
    assert.deepEqual(copies.map((copy) => copy.state), ['Failed', 'Delivered'])
    assert.notEqual(copies[0].id, copies[1].id)
    assert.deepInclude(await message(client, id), { status: 'delivered', attempts: 2 })
    const repeated = [{ id: copies[0].id, state: 'Failed', recipients: [{ phoneNumber: '+33612345678', state: 'Failed', error: copies[0].error }] }]
    assert.equal((await smsgate.call('PATCH', '/message', { body: repeated })).status, 204)
    await flush()
    assert.deepInclude(await message(client, id), { status: 'delivered', attempts: 2 })
    world.events.assertEmittedCount('message.failed', 0)
  })

  test('a failed delivery report after Sent fails the message at once, never sent again; its SIM count stays', async ({ client, assert }) => {
    const smsgate = await phone(client)
    smsgate.behaviour = 'send'
    const id = (await sendAs(client, { to: '+33612345678', body: 'Sent, never delivered' })).body().accepted[0].id
    await flush()
    assert.deepInclude(await message(client, id), { status: 'sent', attempts: 1 })
    const [copy] = copiesOf(smsgate, id)
    const failed = [{ id: copy.id, state: 'Failed', recipients: [{ phoneNumber: '+33612345678', state: 'Failed', error: 'Delivery result: 1' }] }]
    assert.equal((await smsgate.call('PATCH', '/message', { body: failed })).status, 204)
    await flush()
    assert.deepInclude(await message(client, id), { status: 'failed', errorCode: 'DELIVERY_FAILED', attempts: 1 })
    world.events.assertEmittedCount('message.failed', 1)
    const sims = (await device(client, smsgate.id)).sims
    assert.equal(sims[0].sentToday, 1)
    // Nothing goes out again, however long the wait.
    await world.clock.advance(60 * 60_000)
    await flush()
    assert.lengthOf(copiesOf(smsgate, id), 1)
    assert.deepInclude(await message(client, id), { status: 'failed' })
  })

  test('two streams at once: online until the last closes; a keepalive comment every 15 s keeps an idle phone online', async ({ client, assert }) => {
    const smsgate = await phone(client)
    const channel = await app.container.make(SmsgateChannel)
    // The app's second stream, as after a password change: same token, another connection.
    const again = new FakeSmsgateApp(smsgate.apiUrl)
    again.id = smsgate.id
    again.token = smsgate.token
    await again.connect()
    world.apps.push(again)
    await flush()
    assert.equal(channel.openStreams(Number(smsgate.id)), 2)

    await world.clock.advance(6 * 60_000)
    await flush()
    assert.isAtLeast(smsgate.keepalives, 20)
    assert.isAtLeast(again.keepalives, 20)
    assert.equal((await device(client, smsgate.id)).status, 'online')

    smsgate.disconnect()
    await eventually(() => channel.openStreams(Number(smsgate.id)) === 1)
    await flush()
    assert.isTrue(channel.isConnected(Number(smsgate.id)))
    assert.equal((await device(client, smsgate.id)).status, 'online')
    world.events.assertEmittedCount('device.offline', 0)

    again.disconnect()
    await eventually(() => !channel.isConnected(Number(smsgate.id)))
    await flush()
    assert.equal((await device(client, smsgate.id)).status, 'offline')
    world.events.assertEmittedCount('device.offline', 1)
  })

  test('an order the phone had not fetched when it went away is fetched when its stream opens again', async ({ client, assert }) => {
    const smsgate = await phone(client)
    const channel = await app.container.make(SmsgateChannel)
    smsgate.fetchOnEvents = false
    const id = (await sendAs(client, { to: '+33612345678', body: 'Waits for the phone' })).body().accepted[0].id
    await flush()
    smsgate.disconnect()
    await eventually(() => !channel.isConnected(Number(smsgate.id)))
    await flush()
    assert.equal((await message(client, id)).status, 'queued')

    // Back within 5 minutes: the app pulls its messages as its stream opens.
    await world.clock.advance(60_000)
    await smsgate.connect()
    await flush()
    assert.deepInclude(await message(client, id), { status: 'delivered', deviceId: smsgate.id, attempts: 1 })
  })

  test('unpairing revokes the token (401 afterwards) and closes its stream', async ({ client, assert }) => {
    const smsgate = await phone(client)
    assert.isTrue(smsgate.streaming)
    ;(await client.delete(`/api/v1/devices/${smsgate.id}`).header('x-api-key', testKeys.admin)).assertStatus(204)
    await smsgate.closed()
    await flush()
    assert.isFalse(smsgate.streaming)
    for (const [method, path] of [['GET', '/message'], ['GET', '/settings'], ['GET', '/events']]) {
      assert.equal((await smsgate.call(method, path)).status, 401, `${method} ${path}`)
    }
    assert.equal((await smsgate.call('PATCH', '/device', { body: { id: smsgate.id } })).status, 401)
    assert.lengthOf(await db.from('smsgate_devices'), 0)
  })
})
