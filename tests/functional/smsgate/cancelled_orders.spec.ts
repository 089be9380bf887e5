import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import type { ApiClient } from '@japa/api-client'
import { testKeys } from '#tests/helpers/callers'
import { pairPhone } from '#tests/helpers/devices'
import { sendAs } from '#tests/helpers/messages'
import { campaignJob } from '#modules/campaigns/jobs/campaign_job'
import { CampaignEngine } from '#modules/campaigns/services/campaign_engine'
import type { FakeSmsgateApp } from '#tests/functional/smsgate/support/fake_smsgate_app'
import { clearCampaigns, createContacts, resetSendingSettings } from '#tests/functional/campaigns/campaign_helpers'
import { copiesOf, messageIdOf, pairedApp, useSmsgateGateway } from '#tests/functional/smsgate/support/smsgate_phones'

/**
 * A message cancelled while it waits (a campaign cancelled, a number opting out) is taken back
 * from an SMSGate phone that was handed it and has not fetched it: the app accepts an order by
 * fetching it, so nothing of it reached the phone (docs/smsgate.md, Withdrawn orders). What the
 * phone fetched is its own and goes on, and an agent's order goes on as before.
 */
test.group('SMSGate app: orders it never fetched are taken back when their message is cancelled', (group) => {
  const world = useSmsgateGateway(group, [])
  const flush = world.flush
  const message = async (client: ApiClient, id: string) => (await client.get(`/api/v1/messages/${id}`).header('x-api-key', testKeys.read)).body()
  const cancels = (smsgate: FakeSmsgateApp) => smsgate.events.filter((event) => event.event === 'MessageCancelled').map((event) => JSON.parse(event.data).messageId as string)
  const listed = async (smsgate: FakeSmsgateApp) => ((await smsgate.call('GET', '/message')).json as Array<{ id: string }>).map((item) => item.id)
  const sentToday = async (client: ApiClient, deviceId: string) =>
    (await client.get(`/api/v1/devices/${deviceId}`).header('x-api-key', testKeys.read)).body().sims[0].sentToday
  /** The phone's report of a message it never held: what a phone repeating itself late would say. */
  const lateReport = (smsgate: FakeSmsgateApp, appId: string, to: string) =>
    smsgate.call('PATCH', '/message', { body: [{ id: appId, state: 'Delivered', recipients: [{ phoneNumber: to, state: 'Delivered' }] }] })

  /** An SMSGate phone that fetches the first message handed to it and not the second (`send(n)` answers the n-th message's id). */
  async function oneFetchedOneNot(client: ApiClient, send: (n: number) => Promise<string>) {
    const smsgate = await pairedApp(client)
    world.apps.push(smsgate)
    await flush()
    smsgate.behaviour = 'silence'
    const fetched = await send(1)
    await flush()
    smsgate.fetchOnEvents = false
    const unfetched = await send(2)
    await flush()
    if (copiesOf(smsgate, fetched).length !== 1 || copiesOf(smsgate, unfetched).length !== 0) throw new Error('expected one order fetched, one handed out only')
    return { smsgate, fetched, unfetched }
  }

  test('a campaign cancelled: the order never fetched is cancelled on the phone and CAMPAIGN_CANCELLED; the fetched one goes on and its report counts', async ({ client, assert }) => {
    await clearCampaigns()
    await resetSendingSettings()
    world.jobs.runner.register(campaignJob(() => app.container.make(CampaignEngine), world.clock.now()))
    const contacts = await createContacts(2)
    // One a minute: its two messages are handed out one after the other.
    const created = await client.post('/api/v1/campaigns').header('x-api-key', testKeys.admin).json({ name: 'Promo', body: 'Hello {{firstName}}', audience: { contactIds: contacts.map(String) }, throttlePerMinute: 1 })
    const campaign = created.body().id as string
    const messagesOf = async () => (await db.from('messages').where('campaign_id', Number(campaign)).orderBy('id').select('id')).map((row) => String(row.id))
    const { smsgate, fetched, unfetched } = await oneFetchedOneNot(client, async (n) => {
      if (n === 1) (await client.post(`/api/v1/campaigns/${campaign}/launch`).header('x-api-key', testKeys.admin)).assertStatus(200)
      await flush()
      for (let step = 0; (await messagesOf()).length < n; step++) {
        if (step > 12) throw new Error(`the campaign queued no message ${n}`)
        await world.clock.advance(10_000)
        await flush()
      }
      return (await messagesOf())[n - 1]
    })
    assert.deepInclude(await message(client, fetched), { status: 'dispatched', deviceId: smsgate.id })
    assert.deepInclude(await message(client, unfetched), { status: 'queued', deviceId: smsgate.id })
    assert.equal(await sentToday(client, smsgate.id), 2)

    ;(await client.post(`/api/v1/campaigns/${campaign}/cancel`).header('x-api-key', testKeys.admin)).assertStatus(200)
    await flush()

    const told = cancels(smsgate)
    assert.deepEqual(told.map(messageIdOf), [unfetched])
    assert.deepEqual((await listed(smsgate)).map(messageIdOf), [fetched])
    assert.deepInclude(await message(client, unfetched), { status: 'cancelled', errorCode: 'CAMPAIGN_CANCELLED' })
    assert.deepInclude(await message(client, fetched), { status: 'dispatched' })
    // Never sent: its SIM's count of the day is given back.
    assert.equal(await sentToday(client, smsgate.id), 1)

    // A report about the withdrawn order changes nothing; the fetched one's report counts.
    assert.equal((await lateReport(smsgate, told[0], '+33610000001')).status, 204)
    const [copy] = copiesOf(smsgate, fetched)
    assert.equal((await lateReport(smsgate, copy.id, '+33610000000')).status, 204)
    await flush()
    assert.deepInclude(await message(client, unfetched), { status: 'cancelled', errorCode: 'CAMPAIGN_CANCELLED' })
    assert.deepInclude(await message(client, fetched), { status: 'delivered', deviceId: smsgate.id })
    assert.deepEqual(await listed(smsgate), [])
  })
  test('a number opting out: the order never fetched is cancelled on the phone and CONTACT_BLACKLISTED; the fetched one goes on and its report counts', async ({ client, assert }) => {
    const to = '+33612345678'
    const { smsgate, fetched, unfetched } = await oneFetchedOneNot(client, async () => (await sendAs(client, { to, body: 'Promo' })).body().accepted[0].id)
    assert.equal(await sentToday(client, smsgate.id), 2)

    ;(await client.post('/api/v1/contacts').header('x-api-key', testKeys.admin).json({ phone: to, blacklisted: true })).assertStatus(201)
    await flush()

    const told = cancels(smsgate)
    assert.deepEqual(told.map(messageIdOf), [unfetched])
    assert.deepEqual((await listed(smsgate)).map(messageIdOf), [fetched])
    assert.deepInclude(await message(client, unfetched), { status: 'cancelled', errorCode: 'CONTACT_BLACKLISTED' })
    assert.deepInclude(await message(client, fetched), { status: 'dispatched', errorCode: null })
    assert.equal(await sentToday(client, smsgate.id), 1)

    assert.equal((await lateReport(smsgate, told[0], to)).status, 204)
    const [copy] = copiesOf(smsgate, fetched)
    assert.equal((await lateReport(smsgate, copy.id, to)).status, 204)
    await flush()
    assert.deepInclude(await message(client, unfetched), { status: 'cancelled', errorCode: 'CONTACT_BLACKLISTED' })
    assert.deepInclude(await message(client, fetched), { status: 'delivered', deviceId: smsgate.id })
  })

  test('many numbers opting out at once: the order never fetched is taken back and the phone told, the fetched one goes on, the waiting one is cancelled', async ({ client, assert }) => {
    const numbers = ['+33612345601', '+33612345602', '+33612345603']
    const { smsgate, fetched, unfetched } = await oneFetchedOneNot(client, async (n) => (await sendAs(client, { to: numbers[n - 1], body: 'Promo' })).body().accepted[0].id)
    // Scheduled later: still waiting for a phone when the numbers opt out.
    const waiting = (await sendAs(client, { to: numbers[2], body: 'Later', scheduledAt: new Date(world.clock.now().getTime() + 3_600_000).toISOString() })).body().accepted[0].id
    const contacts: string[] = []
    for (const phone of [...numbers, '+33612345604']) contacts.push((await client.post('/api/v1/contacts').header('x-api-key', testKeys.admin).json({ phone })).body().id)
    assert.equal(await sentToday(client, smsgate.id), 2)

    const answer = await client.post('/api/v1/contacts/opt-out').header('x-api-key', testKeys.admin).json({ contactIds: contacts.slice(0, 3) })
    assert.deepEqual(answer.body(), { matched: 3, changed: 3, skipped: {} })
    await flush()

    assert.deepEqual(cancels(smsgate).map(messageIdOf), [unfetched])
    assert.deepEqual((await listed(smsgate)).map(messageIdOf), [fetched])
    assert.deepInclude(await message(client, unfetched), { status: 'cancelled', errorCode: 'CONTACT_BLACKLISTED' })
    assert.deepInclude(await message(client, waiting), { status: 'cancelled', errorCode: 'CONTACT_BLACKLISTED' })
    assert.deepInclude(await message(client, fetched), { status: 'dispatched', errorCode: null })
    assert.equal(await sentToday(client, smsgate.id), 1)
  })

  test("an agent's order not accepted yet goes on, whether a campaign is cancelled or its number opts out", async ({ client, assert }) => {
    await clearCampaigns()
    await resetSendingSettings()
    world.jobs.runner.register(campaignJob(() => app.container.make(CampaignEngine), world.clock.now()))
    // An SMSGate phone is paired too: the cancels do take orders back, from its kind only.
    const smsgate = await pairedApp(client, { connect: false })
    world.apps.push(smsgate)
    const agent = (await pairPhone(client, 'Agent')).device
    const contacts = await createContacts(1)
    const created = await client.post('/api/v1/campaigns').header('x-api-key', testKeys.admin).json({ name: 'Promo', body: 'Hello {{firstName}}', audience: { contactIds: contacts.map(String) } })
    const campaign = created.body().id as string
    ;(await client.post(`/api/v1/campaigns/${campaign}/launch`).header('x-api-key', testKeys.admin)).assertStatus(200)
    await flush()
    const [fromCampaign] = (await db.from('messages').where('campaign_id', Number(campaign)).select('id')).map((row) => String(row.id))
    const direct = (await sendAs(client, { to: '+33612345678', body: 'Promo' })).body().accepted[0].id
    // Handed to the agent, which has not said `accepted` yet (it may be sending them).
    await db.from('messages').whereIn('id', [fromCampaign, direct]).update({ ordered_at: world.clock.now().toISOString(), device_id: String(agent.id), sim_slot: 0 })

    ;(await client.post(`/api/v1/campaigns/${campaign}/cancel`).header('x-api-key', testKeys.admin)).assertStatus(200)
    ;(await client.post('/api/v1/contacts').header('x-api-key', testKeys.admin).json({ phone: '+33612345678', blacklisted: true })).assertStatus(201)
    await flush()
    assert.deepInclude(await message(client, fromCampaign), { status: 'queued', errorCode: null, deviceId: String(agent.id) })
    assert.deepInclude(await message(client, direct), { status: 'queued', errorCode: null, deviceId: String(agent.id) })
  })
})
