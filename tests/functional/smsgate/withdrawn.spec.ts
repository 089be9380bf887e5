import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import type { ApiClient } from '@japa/api-client'
import { testKeys } from '#tests/helpers/callers'
import { sendAs } from '#tests/helpers/messages'
import { eventually } from '#tests/helpers/phones'
import { SmsgateChannel } from '#modules/smsgate/channel/smsgate_channel'
import type { FakeSmsgateApp } from '#tests/functional/smsgate/support/fake_smsgate_app'
import { pairedApp, useSmsgateGateway } from '#tests/functional/smsgate/support/smsgate_phones'

/**
 * Orders the gateway takes back from an SMSGate phone before it reported them are cancelled on
 * the phone (docs/smsgate.md, Withdrawn orders): `MessageCancelled` on its stream, never listed
 * again, and its `Cancelled` report changes nothing.
 */
test.group('SMSGate app: withdrawn orders are cancelled on the phone', (group) => {
  const world = useSmsgateGateway(group, ['message.sent', 'message.delivered', 'message.failed'])
  const flush = world.flush
  const message = async (client: ApiClient, id: string) => (await client.get(`/api/v1/messages/${id}`).header('x-api-key', testKeys.read)).body()
  const phone = async (client: ApiClient) => {
    const paired = await pairedApp(client)
    world.apps.push(paired)
    await flush()
    return paired
  }
  const cancels = (smsgate: FakeSmsgateApp) => smsgate.events.filter((event) => event.event === 'MessageCancelled')

  test('an order of a phone away 5 minutes goes to another phone and is cancelled on the first when it comes back', async ({ client, assert }) => {
    const first = await phone(client)
    const channel = await app.container.make(SmsgateChannel)
    // The phone fetched the order and holds it, Pending, without a word: then it goes away.
    first.behaviour = 'silence'
    const id = (await sendAs(client, { to: '+33612345678', body: 'Taken back' })).body().accepted[0].id
    await flush()
    assert.equal(first.messages.get(id)?.state, 'Pending')
    first.disconnect()
    await eventually(() => !channel.isConnected(Number(first.id)))
    await flush()

    const second = await phone(client)
    await world.clock.advance(6 * 60_000)
    await flush()
    assert.deepInclude(await message(client, id), { status: 'delivered', deviceId: second.id })

    // Back: told at once to drop it, before its fetch; it cancels it and says so.
    await first.connect()
    await flush()
    assert.deepEqual(cancels(first), [{ event: 'MessageCancelled', data: JSON.stringify({ messageId: id }) }])
    assert.equal(first.messages.get(id)?.state, 'Cancelled')
    assert.deepEqual((await first.call('GET', '/message')).json, [])
    // Its Cancelled report changes nothing: still delivered by the other phone, never failed.
    assert.deepInclude(await message(client, id), { status: 'delivered', deviceId: second.id })
    world.events.assertEmittedCount('message.failed', 0)
    world.events.assertEmittedCount('message.sent', 1)

    // Reported: not pushed again at the next connection.
    first.disconnect()
    await eventually(() => !channel.isConnected(Number(first.id)))
    await first.connect()
    await flush()
    assert.lengthOf(cancels(first), 1)
  })

  test('an order the phone never fetched is cancelled on it at each connection for a day (the app ignores an id it does not hold)', async ({ client, assert }) => {
    const first = await phone(client)
    const channel = await app.container.make(SmsgateChannel)
    first.fetchOnEvents = false
    const id = (await sendAs(client, { to: '+33612345678', body: 'Never fetched' })).body().accepted[0].id
    await flush()
    first.disconnect()
    await eventually(() => !channel.isConnected(Number(first.id)))
    const second = await phone(client)
    await world.clock.advance(6 * 60_000)
    await flush()
    assert.deepInclude(await message(client, id), { status: 'delivered', deviceId: second.id })
    second.disconnect()
    await eventually(() => !channel.isConnected(Number(second.id)))

    const reconnect = async () => {
      first.disconnect()
      await eventually(() => !channel.isConnected(Number(first.id)))
      await first.connect()
      await flush()
    }
    await first.connect()
    await flush()
    assert.lengthOf(cancels(first), 1)
    assert.isFalse(first.messages.has(id))
    // It never reports it: each connection within a day is told again; after a day, no more.
    await reconnect()
    assert.lengthOf(cancels(first), 2)
    first.disconnect()
    await eventually(() => !channel.isConnected(Number(first.id)))
    await world.clock.advance(25 * 3_600_000)
    await first.connect()
    await flush()
    assert.lengthOf(cancels(first), 2)
    assert.deepInclude(await message(client, id), { status: 'delivered', deviceId: second.id })
  })

  test('an order taken back and handed to the same phone again is listed again, not cancelled', async ({ client, assert }) => {
    const only = await phone(client)
    const channel = await app.container.make(SmsgateChannel)
    only.fetchOnEvents = false
    const id = (await sendAs(client, { to: '+33612345678', body: 'Back to the same phone' })).body().accepted[0].id
    await flush()
    only.disconnect()
    await eventually(() => !channel.isConnected(Number(only.id)))
    await world.clock.advance(6 * 60_000)
    await flush()
    assert.deepInclude(await message(client, id), { status: 'queued' })
    // Back, and the only phone: told to drop the old order, then handed it again, and sends it.
    await only.connect()
    await flush()
    await only.fetchMessages()
    await flush()
    assert.lengthOf(cancels(only), 1)
    assert.deepInclude(await message(client, id), { status: 'delivered', deviceId: only.id })
  })

  test('unpairing tells the phone to drop the orders it has not reported before its stream closes', async ({ client, assert }) => {
    const smsgate = await phone(client)
    smsgate.behaviour = 'silence'
    const id = (await sendAs(client, { to: '+33612345678', body: 'Unpaired before sending' })).body().accepted[0].id
    await flush()
    ;(await client.delete(`/api/v1/devices/${smsgate.id}`).header('x-api-key', testKeys.admin)).assertStatus(204)
    await smsgate.closed()
    await flush()
    assert.deepEqual(cancels(smsgate), [{ event: 'MessageCancelled', data: JSON.stringify({ messageId: id }) }])
    // Its Cancelled report is refused with its token; the message waits for another phone.
    assert.equal(smsgate.messages.get(id)?.state, 'Cancelled')
    assert.deepInclude(await message(client, id), { status: 'queued' })
    world.events.assertEmittedCount('message.failed', 0)
  })
})
