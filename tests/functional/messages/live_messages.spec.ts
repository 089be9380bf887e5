import { test } from '@japa/runner'
import { useManualClock } from '#tests/helpers/clock'
import { signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearDevices, pairingCode } from '#tests/helpers/devices'
import { clearMessaging, sendAs } from '#tests/helpers/messages'
import { eventually, settle, simulatedPhone, useDeviceJobs } from '#tests/helpers/phones'
import { openLiveStream } from '#tests/helpers/live_stream'
import { phoneWithHeldReceipts } from '#tests/helpers/held_receipts'
import type { PhoneAgent } from '../../../agent/src/phone_agent.js'

type Entry = { id: string; conversationId: string; direction: string; status: string }

test.group('Messages live on the dashboard stream', (group) => {
  let clock: ReturnType<typeof useManualClock>['clock']
  let jobs: Awaited<ReturnType<typeof useDeviceJobs>>
  let agents: PhoneAgent[] = []

  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearMessaging()
    await clearDevices()
    const manual = useManualClock(new Date())
    clock = manual.clock
    jobs = await useDeviceJobs(clock)
    agents = []
    return async () => {
      for (const agent of agents) await agent.disconnect()
      await jobs.hub.settled()
      await jobs.stop()
      manual.restore()
    }
  })

  const flush = () => settle(clock, jobs.runner, jobs.hub, agents)

  test('a send is seen queued, then dispatched or sent, then delivered; an inbound SMS arrives; no number or text', async ({ client, assert }) => {
    const session = await signInAs(client, 'readonly')
    const stream = await openLiveStream(client, session, 'messages')
    try {
      const accepted = await sendAs(client, { to: '+33612345678', body: 'Live status please' })
      accepted.assertStatus(202)
      const { id, conversationId } = accepted.body().accepted[0]
      const statusesOf = (messageId: string) =>
        stream
          .events()
          .flatMap((event) => event.messages as Entry[])
          .filter((entry) => entry.id === messageId)
          .map((entry) => entry.status)
      await eventually(() => statusesOf(id).includes('queued'))
      const first = stream.events()[0]
      assert.deepEqual(Object.keys(first).sort(), ['at', 'messages', 'more', 'type'])
      assert.equal(first.type, 'messages.changed')
      assert.equal(first.at, clock.now().toISOString())
      assert.isFalse(first.more)
      assert.deepEqual(first.messages, [{ id, conversationId, direction: 'out', status: 'queued' }])

      const phone = await phoneWithHeldReceipts(await pairingCode(client))
      agents.push(phone.agent)
      await flush()
      await eventually(() => statusesOf(id).includes('sent'))
      phone.driver.deliverAll()
      await flush()
      await eventually(() => statusesOf(id).includes('delivered'))
      // Handed to the phone is still `queued` (ordered) until it accepts; its accepted and sent
      // may share a batch (one entry then, with the later status).
      const seen = statusesOf(id).filter((status, index, all) => status !== 'dispatched' && status !== all[index - 1])
      assert.deepEqual(seen, ['queued', 'sent', 'delivered'])

      phone.driver.receive('+33699887766', 'Incoming words')
      await flush()
      await eventually(() => stream.events().some((event) => (event.messages as Entry[]).some((entry) => entry.direction === 'in')))
      const inbound = stream.events().flatMap((event) => event.messages as Entry[]).find((entry) => entry.direction === 'in')!
      assert.equal(inbound.status, 'delivered')
      const stored = (await client.get(`/api/v1/messages/${inbound.id}`).header('x-api-key', testKeys.read)).body()
      assert.equal(stored.direction, 'in')

      const everything = JSON.stringify(stream.events())
      for (const secret of ['612345678', '699887766', 'Live status', 'Incoming words']) assert.notInclude(everything, secret)
    } finally {
      stream.close()
    }
  })

  test('a batch is one broadcast of at most 100 entries, with `more` when it changed more', async ({ client, assert }) => {
    const session = await signInAs(client, 'readonly')
    const stream = await openLiveStream(client, session, 'messages')
    try {
      const to = Array.from({ length: 150 }, (_, index) => `+336${String(10000000 + index)}`)
      ;(await sendAs(client, { to, body: 'Many at once' })).assertStatus(202)
      await eventually(() => stream.events().length >= 1)
      await new Promise((resolve) => setTimeout(resolve, 100))
      assert.lengthOf(stream.events(), 1)
      const [batch] = stream.events()
      assert.lengthOf(batch.messages as Entry[], 100)
      assert.isTrue(batch.more)
    } finally {
      stream.close()
    }
  })

  test('a failed message retried and a deleted one are announced (queued again, then deleted)', async ({ client, assert }) => {
    const session = await signInAs(client, 'readonly')
    // Forced to a phone that cannot exist: the dispatcher fails it at once.
    const accepted = await sendAs(client, { to: '+33612345678', body: 'Nowhere', deviceId: '999999' })
    accepted.assertStatus(202)
    const { id } = accepted.body().accepted[0]
    const stream = await openLiveStream(client, session, 'messages')
    try {
      const phone = await simulatedPhone(client)
      agents.push(phone.agent)
      await flush()
      const statuses = () => stream.events().flatMap((event) => (event.messages as Entry[]).filter((entry) => entry.id === id).map((entry) => entry.status))
      await eventually(() => statuses().includes('failed'))
      ;(await client.post(`/api/v1/messages/${id}/retry`).header('x-api-key', testKeys.send)).assertStatus(200)
      await eventually(() => statuses().filter((status) => status === 'queued').length === 1)
      ;(await client.delete(`/api/v1/messages/${id}`).header('x-api-key', testKeys.admin)).assertStatus(204)
      await eventually(() => statuses().includes('deleted'))
      assert.deepEqual(statuses().slice(0, 2), ['failed', 'queued'])
      assert.equal(statuses().at(-1), 'deleted')
    } finally {
      stream.close()
    }
  })
})
