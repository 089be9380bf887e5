import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { useManualClock } from '#tests/helpers/clock'
import { clearCampaigns, createContacts, createGroupOf, resetSendingSettings, useCampaignJob } from '#tests/functional/campaigns/campaign_helpers'

const START = '2026-01-15T10:00:00.000Z'

async function launch(client: any, fields: Record<string, unknown>) {
  const created = await client.post('/api/v1/campaigns').header('x-api-key', testKeys.admin).json({ name: 'Promo', body: 'Hi {{firstName|there}} from {{city|here}}', ...fields })
  created.assertStatus(201)
  const launched = await client.post(`/api/v1/campaigns/${created.body().id}/launch`).header('x-api-key', testKeys.admin)
  launched.assertStatus(200)
  return launched.body().id as string
}

async function get(client: any, id: string) {
  return (await client.get(`/api/v1/campaigns/${id}`).header('x-api-key', testKeys.read)).body()
}

test.group('Campaigns: launch and materialisation', (group) => {
  let clock: ReturnType<typeof useManualClock>
  let jobs: Awaited<ReturnType<typeof useCampaignJob>>
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearCampaigns()
    await resetSendingSettings()
    clock = useManualClock(START)
    jobs = await useCampaignJob(clock.clock)
    return async () => {
      await jobs.stop()
      clock.restore()
    }
  })

  test('launch resolves the audience once: groups, contacts and numbers, each number once, opted-out and invalid counted', async ({ client, assert }) => {
    const contacts = await createContacts(20, { blacklistedEvery: 10 })
    const groupId = await createGroupOf(contacts.slice(0, 15))
    const id = await launch(client, {
      audience: { groupIds: [String(groupId)], contactIds: contacts.slice(10).map(String), numbers: ['+33610000001', '+33699999999', '+33699999999', 'not a number'] },
    })
    await jobs.settle()
    const campaign = await get(client, id)
    // 20 contacts (2 opted out: #0, #10); #10 to #14 are in the group and named (5 repeats),
    // +33610000001 is contact #1 (a repeat), +33699999999 is typed twice (a repeat), sent once.
    assert.equal(campaign.counts.total, 19)
    assert.deepEqual(campaign.counts.excluded, { optedOut: 2, duplicates: 7, invalid: 1 })
    assert.equal(campaign.status, 'running')
    const messages = await db.from('messages').where('campaign_id', Number(id)).select('phone', 'body', 'category')
    assert.lengthOf(messages, 19)
    assert.isTrue(messages.every((message) => message.category === 'campaign'))
    assert.include(messages.find((message) => message.phone === '+33610000001')!.body, 'Hi First1 from Paris')
    assert.equal(messages.find((message) => message.phone === '+33699999999')!.body, 'Hi there from here')
    const listed = await client.get('/api/v1/messages').qs({ campaignId: id }).header('x-api-key', testKeys.read)
    assert.lengthOf(listed.body().data, 19)
    assert.equal(listed.body().data[0].campaignId, id)
    assert.equal(campaign.counts.queued, 19)
    assert.equal(campaign.counts.pending, 0)
  })

  test('a throttle of 60 per minute: moving the clock one minute materialises exactly 60', async ({ client, assert }) => {
    const contacts = await createContacts(300)
    const id = await launch(client, { audience: { contactIds: contacts.map(String) }, throttlePerMinute: 60 })
    await jobs.settle()
    assert.equal(await db.from('messages').where('campaign_id', Number(id)).count('* as n').first().then((row) => Number(row.n)), 0)
    await clock.clock.advance(60_000)
    await jobs.runner.whenIdle()
    const count = async () => Number((await db.from('messages').where('campaign_id', Number(id)).count('* as n').first()).n)
    assert.equal(await count(), 60)
    await clock.clock.advance(30_000)
    await jobs.runner.whenIdle()
    assert.equal(await count(), 90)
    const campaign = await get(client, id)
    assert.equal(campaign.counts.pending, 210)
    // No phone can send: nothing leaves, so no end is promised.
    assert.isNull(campaign.estimatedEndAt)
    // A phone online (its row as the devices module keeps it; no socket: the dispatcher is not run here).
    const at = new Date().toISOString()
    await db.table('devices').insert({ name: 'Estimate phone', credential_sealed: 'x', enabled: true, status: 'online', created_at: at, updated_at: at })
    try {
      // 300 not sent yet (210 pending, 90 queued) at 60 a minute: five minutes from now.
      assert.equal((await get(client, id)).estimatedEndAt, new Date(Date.parse(START) + 90_000 + 300_000).toISOString())
    } finally {
      await db.from('devices').where('name', 'Estimate phone').delete()
    }
  })

  test('without a throttle the backlog of unsent messages stays small', async ({ client, assert }) => {
    const contacts = await createContacts(1200)
    const id = await launch(client, { audience: { contactIds: contacts.map(String) } })
    await jobs.settle()
    await clock.clock.advance(5000)
    await jobs.runner.whenIdle()
    const campaign = await get(client, id)
    assert.equal(campaign.counts.queued, 500)
    assert.equal(campaign.counts.pending, 700)
  })

  test('a contact opted out after launch is withdrawn when its turn comes', async ({ client, assert }) => {
    const contacts = await createContacts(3)
    const id = await launch(client, { audience: { contactIds: contacts.map(String) }, throttlePerMinute: 60 })
    await jobs.settle()
    await db.from('contacts').where('id', contacts[1]).update({ blacklisted: 1 })
    await clock.clock.advance(60_000)
    await jobs.runner.whenIdle()
    const recipients = (await client.get(`/api/v1/campaigns/${id}/recipients`).header('x-api-key', testKeys.read)).body().data
    assert.deepEqual(
      recipients.map((recipient: any) => [recipient.status, recipient.errorCode, recipient.messageId === null]),
      [
        ['queued', null, false],
        ['cancelled', 'CONTACT_BLACKLISTED', true],
        ['queued', null, false],
      ]
    )
  })

  test('pause holds the messages not yet with a phone, resume releases them, cancel withdraws the rest', async ({ client, assert }) => {
    const contacts = await createContacts(10)
    const id = await launch(client, { audience: { contactIds: contacts.map(String) }, throttlePerMinute: 300 })
    await jobs.settle()
    await clock.clock.advance(1000)
    await jobs.runner.whenIdle()
    const paused = await client.post(`/api/v1/campaigns/${id}/pause`).header('x-api-key', testKeys.admin)
    paused.assertStatus(200)
    assert.equal(paused.body().status, 'paused')
    assert.equal(paused.body().counts.paused, 5)
    await clock.clock.advance(60_000)
    await jobs.runner.whenIdle()
    assert.equal((await get(client, id)).counts.pending, 5, 'nothing materialised while paused')

    const resumed = await client.post(`/api/v1/campaigns/${id}/resume`).header('x-api-key', testKeys.admin)
    assert.equal(resumed.body().status, 'running')
    assert.equal(resumed.body().counts.queued, 5)

    const cancelled = await client.post(`/api/v1/campaigns/${id}/cancel`).header('x-api-key', testKeys.admin)
    assert.equal(cancelled.body().status, 'cancelled')
    assert.equal(cancelled.body().counts.cancelled, 10)
    const statuses = await db.from('messages').where('campaign_id', Number(id)).select('status', 'error_code')
    assert.isTrue(statuses.every((message) => message.status === 'cancelled' && message.error_code === 'CAMPAIGN_CANCELLED'))
    ;(await client.post(`/api/v1/campaigns/${id}/resume`).header('x-api-key', testKeys.admin)).assertStatus(409)
    const activity = await client.get('/api/v1/activity').qs({ source: 'campaigns' }).header('x-api-key', testKeys.read)
    assert.deepEqual(
      activity.body().data.map((entry: any) => entry.message).reverse(),
      ['Campaign "Promo" started', 'Campaign "Promo" paused', 'Campaign "Promo" resumed', 'Campaign "Promo" cancelled']
    )
  })

  test('completion is announced once when every recipient is final, and failed ones are retried in a new run', async ({ client, assert }) => {
    const completed: unknown[] = []
    const listener = (event: unknown) => void completed.push(event)
    emitter.on('campaign.completed' as any, listener)
    try {
      const contacts = await createContacts(4)
      const id = await launch(client, { audience: { contactIds: contacts.map(String) } })
      await jobs.settle()
      const ids = (await db.from('messages').where('campaign_id', Number(id)).orderBy('id').select('id')).map((row) => row.id)
      // The messages module's own transitions, as phones' reports would make them.
      await db.from('messages').whereIn('id', ids.slice(0, 3)).update({ status: 'sent' })
      await db.from('messages').where('id', ids[3]).update({ status: 'failed', error_code: 'RADIO_OFF' })
      await emitter.emit('messages:changed', {
        changes: ids.map((messageId, index) => ({ id: messageId, conversationId: 0, direction: 'out' as const, status: index < 3 ? ('sent' as const) : ('failed' as const), campaignId: Number(id) })),
      })
      await clock.clock.advance(1000)
      await jobs.runner.whenIdle()
      await clock.clock.advance(1000)
      await jobs.runner.whenIdle()
      const campaign = await get(client, id)
      assert.equal(campaign.status, 'completed')
      assert.deepInclude(campaign.counts, { sent: 3, failed: 1, pending: 0 })
      assert.lengthOf(completed, 1)
      const failed = (await client.get(`/api/v1/campaigns/${id}/recipients`).qs({ status: 'failed' }).header('x-api-key', testKeys.read)).body().data
      assert.equal(failed[0].errorCode, 'RADIO_OFF')

      const retried = await client.post(`/api/v1/campaigns/${id}/retry-failed`).header('x-api-key', testKeys.admin)
      retried.assertStatus(200)
      assert.deepInclude(retried.body(), { status: 'running', run: 2 })
      await jobs.settle()
      await clock.clock.advance(1000)
      await jobs.runner.whenIdle()
      const again = await get(client, id)
      assert.deepInclude(again.counts, { sent: 3, failed: 0, queued: 1 })
      const secondRun = (await client.get(`/api/v1/campaigns/${id}/recipients`).qs({ run: 2 }).header('x-api-key', testKeys.read)).body().data
      assert.lengthOf(secondRun, 1)
      assert.equal(secondRun[0].status, 'queued')
      assert.lengthOf(completed, 1)
    } finally {
      emitter.off('campaign.completed' as any, listener)
    }
  })

  test('a retry run that completes announces campaign.completed again (once per run); retrying with nothing failed is 409 CAMPAIGN_NOTHING_TO_RETRY', async ({ client, assert }) => {
    const completed: any[] = []
    const listener = (event: unknown) => void completed.push(event)
    emitter.on('campaign.completed' as any, listener)
    // Final statuses as the phones' reports would make them, then two passes to see them.
    const finish = async (id: string, statuses: Array<'sent' | 'failed'>) => {
      const ids = (await db.from('messages').where('campaign_id', Number(id)).whereIn('status', ['queued']).orderBy('id').select('id')).map((row) => row.id)
      for (const [index, messageId] of ids.entries()) await db.from('messages').where('id', messageId).update({ status: statuses[index] })
      await emitter.emit('messages:changed', {
        changes: ids.map((messageId, index) => ({ id: messageId, conversationId: 0, direction: 'out' as const, status: statuses[index], campaignId: Number(id) })),
      })
      for (let pass = 0; pass < 2; pass++) {
        await clock.clock.advance(1000)
        await jobs.runner.whenIdle()
      }
    }
    try {
      const contacts = await createContacts(2)
      const id = await launch(client, { audience: { contactIds: contacts.map(String) } })
      await jobs.settle()
      await finish(id, ['sent', 'failed'])
      assert.lengthOf(completed, 1)

      ;(await client.post(`/api/v1/campaigns/${id}/retry-failed`).header('x-api-key', testKeys.admin)).assertStatus(200)
      await jobs.settle()
      await finish(id, ['sent'])
      const campaign = await get(client, id)
      assert.deepInclude(campaign, { status: 'completed', run: 2 })
      assert.deepInclude(campaign.counts, { sent: 2, failed: 0 })
      assert.lengthOf(completed, 2, 'the second run ends: announced again')
      assert.deepEqual(completed.map((event) => [event.id, event.status]), [[id, 'completed'], [id, 'completed']])

      const nothing = await client.post(`/api/v1/campaigns/${id}/retry-failed`).header('x-api-key', testKeys.admin)
      nothing.assertStatus(409)
      assert.equal(nothing.body().error.code, 'CAMPAIGN_NOTHING_TO_RETRY')
      assert.deepInclude(await get(client, id), { status: 'completed', run: 2 })
      assert.lengthOf(completed, 2)
    } finally {
      emitter.off('campaign.completed' as any, listener)
    }
  })

  test('a campaign launched with a future startAt is scheduled, resolved at once, and starts sending at that time', async ({ client, assert }) => {
    const contacts = await createContacts(5)
    const startAt = new Date(Date.parse(START) + 3_600_000).toISOString()
    const created = await client.post('/api/v1/campaigns').header('x-api-key', testKeys.admin).json({ name: 'Later', body: 'Hi', audience: { contactIds: contacts.map(String) }, startAt })
    const launched = await client.post(`/api/v1/campaigns/${created.body().id}/launch`).header('x-api-key', testKeys.admin)
    assert.equal(launched.body().status, 'scheduled')
    await jobs.settle()
    const waiting = await get(client, created.body().id)
    assert.deepInclude(waiting.counts, { total: 5, pending: 5, queued: 0 })
    ;(await client.post(`/api/v1/campaigns/${created.body().id}/retry-failed`).header('x-api-key', testKeys.admin)).assertStatus(409)
    // Still editable while scheduled: the audience is resolved again.
    const edited = await client.patch(`/api/v1/campaigns/${created.body().id}`).header('x-api-key', testKeys.admin).json({ audience: { numbers: ['+33799999999'] } })
    edited.assertStatus(200)
    await jobs.settle()
    assert.deepInclude((await get(client, created.body().id)).counts, { total: 6, pending: 6 })
    await clock.clock.advance(3_599_000)
    await jobs.runner.whenIdle()
    assert.equal((await get(client, created.body().id)).status, 'scheduled')
    await clock.clock.advance(1000)
    await jobs.runner.whenIdle()
    const started = await get(client, created.body().id)
    assert.equal(started.status, 'running')
    assert.equal(started.counts.queued, 6)
  })

  test("a template's text is taken at launch: editing the template later leaves the running campaign alone", async ({ client, assert }) => {
    const template = await client.post('/api/v1/templates').header('x-api-key', testKeys.admin).json({ name: 'Greeting', body: 'Hello {{firstName}}' })
    template.assertStatus(201)
    const contacts = await createContacts(4)
    const created = await client
      .post('/api/v1/campaigns')
      .header('x-api-key', testKeys.admin)
      .json({ name: 'From a template', templateId: template.body().id, audience: { contactIds: contacts.map(String) }, throttlePerMinute: 120 })
    const launched = await client.post(`/api/v1/campaigns/${created.body().id}/launch`).header('x-api-key', testKeys.admin)
    assert.equal(launched.body().body, 'Hello {{firstName}}')
    await jobs.settle()
    ;(await client.patch(`/api/v1/templates/${template.body().id}`).header('x-api-key', testKeys.admin).json({ body: 'Changed {{firstName}}' })).assertStatus(200)
    await clock.clock.advance(60_000)
    await jobs.runner.whenIdle()
    const bodies = (await db.from('messages').where('campaign_id', Number(created.body().id)).orderBy('id').select('body')).map((row) => row.body)
    assert.deepEqual(bodies, ['Hello First0', 'Hello First1', 'Hello First2', 'Hello First3'])
  })
})
