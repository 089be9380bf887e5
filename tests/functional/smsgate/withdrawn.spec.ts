import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import type { ApiClient } from '@japa/api-client'
import { testKeys } from '#tests/helpers/callers'
import { sendAs } from '#tests/helpers/messages'
import { eventually } from '#tests/helpers/phones'
import { SmsgateChannel } from '#modules/smsgate/channel/smsgate_channel'
import type { FakeSmsgateApp } from '#tests/functional/smsgate/support/fake_smsgate_app'
import { copiesOf, messageIdOf, pairedApp, useSmsgateGateway } from '#tests/functional/smsgate/support/smsgate_phones'

/**
 * What the app fetched is the phone's; orders the gateway takes back from an SMSGate phone
 * before it fetched them are cancelled on the phone (docs/smsgate.md, Withdrawn orders):
 * `MessageCancelled` on its stream, never listed again, and its `Cancelled` report changes
 * nothing.
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

  test('an order the phone fetched stays its own when it is away 5 minutes: never sent by another phone', async ({ client, assert }) => {
    const first = await phone(client)
    const channel = await app.container.make(SmsgateChannel)
    // The phone fetched the order and holds it, Pending, without a word: then it goes away.
    first.behaviour = 'silence'
    const id = (await sendAs(client, { to: '+33612345678', body: 'Fetched, then away' })).body().accepted[0].id
    await flush()
    const [copy] = copiesOf(first, id)
    assert.equal(copy.state, 'Pending')
    first.disconnect()
    await eventually(() => !channel.isConnected(Number(first.id)))
    await flush()

    const second = await phone(client)
    await world.clock.advance(6 * 60_000)
    await flush()
    assert.deepInclude(await message(client, id), { status: 'dispatched', deviceId: first.id, attempts: 1 })
    assert.equal(second.messages.size, 0)
    assert.lengthOf(cancels(first), 0)

    // Back: it sends what it held, and says so with the id it was given.
    await first.connect()
    await flush()
    assert.lengthOf(cancels(first), 0)
    const delivered = [{ id: copy.id, state: 'Delivered', recipients: [{ phoneNumber: '+33612345678', state: 'Delivered' }] }]
    assert.equal((await first.call('PATCH', '/message', { body: delivered })).status, 204)
    await flush()
    assert.deepInclude(await message(client, id), { status: 'delivered', deviceId: first.id, attempts: 1 })
    assert.equal(second.messages.size, 0)
    world.events.assertEmittedCount('message.sent', 1)
    world.events.assertEmittedCount('message.failed', 0)
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

  test('an order taken back and handed to the same phone again is a new id: the old one cancelled, the new one sent', async ({ client, assert }) => {
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
    const [copy] = copiesOf(only, id)
    // Told to drop the first hand-out's id; the second hand-out is another id, which it sends.
    assert.lengthOf(cancels(only), 1)
    const cancelled = JSON.parse(cancels(only)[0].data).messageId
    assert.equal(messageIdOf(cancelled), id)
    assert.notEqual(cancelled, copy.id)
    assert.equal(copy.state, 'Delivered')
    assert.deepInclude(await message(client, id), { status: 'delivered', deviceId: only.id })
  })

  test('a message deleted while the phone holds it is cancelled on the phone, fetched or not', async ({ client, assert }) => {
    const smsgate = await phone(client)
    smsgate.behaviour = 'silence'
    const fetched = (await sendAs(client, { to: '+33612345678', body: 'Fetched, then deleted' })).body().accepted[0].id
    await flush()
    smsgate.fetchOnEvents = false
    const unfetched = (await sendAs(client, { to: '+33698765432', body: 'Deleted before its fetch' })).body().accepted[0].id
    await flush()
    const [copy] = copiesOf(smsgate, fetched)
    assert.deepEqual(copiesOf(smsgate, unfetched), [])

    for (const id of [fetched, unfetched]) (await client.delete(`/api/v1/messages/${id}`).header('x-api-key', testKeys.admin)).assertStatus(204)
    await flush()
    // Told to drop both, by the ids of their hand-outs; it cancels the one it held; neither listed.
    const told = cancels(smsgate).map((event) => JSON.parse(event.data).messageId)
    assert.deepEqual(told.map(messageIdOf), [fetched, unfetched])
    assert.equal(told[0], copy.id)
    assert.equal(copy.state, 'Cancelled')
    assert.deepEqual((await smsgate.call('GET', '/message')).json, [])
    world.events.assertEmittedCount('message.failed', 0)
  })

  test('a bulk delete withdraws from the phone as one delete does: fetched or not, each cancelled on the phone', async ({ client, assert }) => {
    const smsgate = await phone(client)
    smsgate.behaviour = 'silence'
    const fetched = (await sendAs(client, { to: '+33612345678', body: 'Fetched, then deleted with others' })).body().accepted[0].id
    await flush()
    smsgate.fetchOnEvents = false
    const unfetched = (await sendAs(client, { to: '+33698765432', body: 'Deleted with others before its fetch' })).body().accepted[0].id
    await flush()
    const [copy] = copiesOf(smsgate, fetched)

    const answer = await client.post('/api/v1/messages/bulk-delete').header('x-api-key', testKeys.admin).json({ ids: [fetched, unfetched] })
    answer.assertStatus(200)
    assert.deepEqual(answer.body(), { matched: 2, changed: 2, skipped: {} })
    await flush()
    const told = cancels(smsgate).map((event) => JSON.parse(event.data).messageId)
    assert.sameMembers(told.map(messageIdOf), [fetched, unfetched])
    assert.equal(copy.state, 'Cancelled')
    assert.deepEqual((await smsgate.call('GET', '/message')).json, [])
    world.events.assertEmittedCount('message.failed', 0)
  })

  test('unpairing: what it never fetched goes to another phone, what it fetched fails OUTCOME_UNKNOWN; it is told to drop both', async ({ client, assert }) => {
    const smsgate = await phone(client)
    smsgate.behaviour = 'silence'
    const fetched = (await sendAs(client, { to: '+33612345678', body: 'Fetched before unpairing' })).body().accepted[0].id
    await flush()
    smsgate.fetchOnEvents = false
    const unfetched = (await sendAs(client, { to: '+33698765432', body: 'Never fetched' })).body().accepted[0].id
    await flush()
    const [copy] = copiesOf(smsgate, fetched)
    assert.deepEqual(copiesOf(smsgate, unfetched), [])
    assert.deepInclude(await message(client, fetched), { status: 'dispatched' })

    ;(await client.delete(`/api/v1/devices/${smsgate.id}`).header('x-api-key', testKeys.admin)).assertStatus(204)
    await smsgate.closed()
    await flush()
    const told = cancels(smsgate).map((event) => JSON.parse(event.data).messageId)
    assert.lengthOf(told, 2)
    assert.include(told, copy.id)
    // Its Cancelled report is refused with its token: whether the fetched SMS left is unknown.
    assert.equal(copy.state, 'Cancelled')
    assert.deepInclude(await message(client, fetched), { status: 'failed', errorCode: 'OUTCOME_UNKNOWN' })
    assert.deepInclude(await message(client, unfetched), { status: 'queued' })
    world.events.assertEmittedCount('message.failed', 1)
  })
})
