import { test } from '@japa/runner'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearCampaigns, resetSendingSettings } from '#tests/functional/campaigns/campaign_helpers'

test.group('Campaigns: drafts', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearCampaigns()
    await resetSendingSettings()
  })

  test('create, read, list, change and delete a draft', async ({ client, assert }) => {
    const created = await client
      .post('/api/v1/campaigns')
      .header('x-api-key', testKeys.admin)
      .json({ name: 'Spring sale', body: 'Hello {{firstName|there}}', audience: { numbers: ['+33612345678'] }, throttlePerMinute: 60 })
    created.assertStatus(201)
    assert.deepInclude(created.body(), { name: 'Spring sale', status: 'draft', run: 0, throttlePerMinute: 60, templateId: null, resumesAt: null })
    assert.deepEqual(created.body().audience, { groupIds: [], contactIds: [], numbers: ['+33612345678'], importIds: [] })
    assert.equal(created.body().counts.total, 0)
    const id = created.body().id

    const read = await client.get(`/api/v1/campaigns/${id}`).header('x-api-key', testKeys.read)
    read.assertStatus(200)
    assert.equal(read.body().name, 'Spring sale')

    const listed = await client.get('/api/v1/campaigns').qs({ status: 'draft' }).header('x-api-key', testKeys.read)
    assert.deepEqual(listed.body().data.map((campaign: any) => campaign.id), [id])
    const none = await client.get('/api/v1/campaigns').qs({ status: 'running' }).header('x-api-key', testKeys.read)
    assert.lengthOf(none.body().data, 0)

    const changed = await client.patch(`/api/v1/campaigns/${id}`).header('x-api-key', testKeys.admin).json({ name: 'Summer sale', audience: { groupIds: ['7'] } })
    changed.assertStatus(200)
    assert.equal(changed.body().name, 'Summer sale')
    assert.deepEqual(changed.body().audience.groupIds, ['7'])
    assert.deepEqual(changed.body().audience.numbers, ['+33612345678'])

    ;(await client.delete(`/api/v1/campaigns/${id}`).header('x-api-key', testKeys.admin)).assertStatus(204)
    ;(await client.get(`/api/v1/campaigns/${id}`).header('x-api-key', testKeys.read)).assertStatus(404)
  })

  test('bad input is a 400 in the error format; a read key cannot create', async ({ client, assert }) => {
    for (const body of [{}, { name: '' }, { name: 'x', throttlePerMinute: 0 }, { name: 'x', simSlot: 3 }, { name: 'x', startAt: 'tomorrow' }, { name: 'x', extra: 1 }]) {
      const refused = await client.post('/api/v1/campaigns').header('x-api-key', testKeys.admin).json(body)
      refused.assertStatus(400)
      assert.equal(refused.body().error.code, 'VALIDATION_ERROR', JSON.stringify(body))
    }
    ;(await client.post('/api/v1/campaigns').header('x-api-key', testKeys.read).json({ name: 'x' })).assertStatus(403)
  })

  test('a launched campaign is no longer editable (409) nor deletable while running', async ({ client, assert }) => {
    const created = await client.post('/api/v1/campaigns').header('x-api-key', testKeys.admin).json({ name: 'x', body: 'Hi', audience: { numbers: ['+33612345678'] } })
    const id = created.body().id
    const launched = await client.post(`/api/v1/campaigns/${id}/launch`).header('x-api-key', testKeys.admin)
    launched.assertStatus(200)
    assert.equal(launched.body().status, 'running')
    const edit = await client.patch(`/api/v1/campaigns/${id}`).header('x-api-key', testKeys.admin).json({ name: 'y' })
    edit.assertStatus(409)
    assert.equal(edit.body().error.code, 'CAMPAIGN_NOT_EDITABLE')
    const deleted = await client.delete(`/api/v1/campaigns/${id}`).header('x-api-key', testKeys.admin)
    deleted.assertStatus(409)
    assert.equal(deleted.body().error.code, 'CAMPAIGN_WRONG_STATE')
    const again = await client.post(`/api/v1/campaigns/${id}/launch`).header('x-api-key', testKeys.admin)
    again.assertStatus(409)
  })

  test('a campaign without text or audience is not launched (422)', async ({ client, assert }) => {
    const noText = await client.post('/api/v1/campaigns').header('x-api-key', testKeys.admin).json({ name: 'x', audience: { numbers: ['+33612345678'] } })
    const refused = await client.post(`/api/v1/campaigns/${noText.body().id}/launch`).header('x-api-key', testKeys.admin)
    refused.assertStatus(422)
    assert.equal(refused.body().error.code, 'CAMPAIGN_NOT_READY')
    const noAudience = await client.post('/api/v1/campaigns').header('x-api-key', testKeys.admin).json({ name: 'x', body: 'Hi' })
    ;(await client.post(`/api/v1/campaigns/${noAudience.body().id}/launch`).header('x-api-key', testKeys.admin)).assertStatus(422)
  })

  test('review: recipients after exclusions, segments, samples, duration at the throttle and problems, without writing', async ({ client, assert }) => {
    const created = await client.post('/api/v1/campaigns').header('x-api-key', testKeys.admin).json({
      name: 'x',
      body: 'Bonjour {{name|à vous}}',
      audience: { numbers: ['+33612345678', '+33612345678', 'nope', '+33612345679'] },
      throttlePerMinute: 2,
    })
    const review = await client.get(`/api/v1/campaigns/${created.body().id}/review`).header('x-api-key', testKeys.read)
    review.assertStatus(200)
    assert.deepInclude(review.body(), { recipients: 2, segments: 2, estimatedDurationSeconds: 60 })
    // Not a refusal: a phone may come back before the start; but it is said.
    assert.deepEqual(review.body().problems, [{ code: 'NO_PHONE_AVAILABLE', message: 'No phone is online and enabled: the campaign will wait for one (Phones page).' }])
    assert.deepEqual(review.body().excluded, { optedOut: 0, duplicates: 1, invalid: 1 })
    assert.deepEqual(review.body().encodings, { gsm7: 2, ucs2: 0 })
    assert.deepEqual(review.body().sample[0], { phone: '+33612345678', body: 'Bonjour à vous', encoding: 'gsm7', segments: 1 })
    const after = await client.get(`/api/v1/campaigns/${created.body().id}`).header('x-api-key', testKeys.read)
    assert.equal(after.body().status, 'draft')

    const empty = await client.post('/api/v1/campaigns').header('x-api-key', testKeys.admin).json({ name: 'y' })
    const problems = (await client.get(`/api/v1/campaigns/${empty.body().id}/review`).header('x-api-key', testKeys.read)).body().problems
    assert.deepEqual(
      problems.map((problem: any) => problem.code),
      ['NO_TEXT', 'NO_RECIPIENTS', 'NO_PHONE_AVAILABLE']
    )
    assert.isTrue(problems.every((problem: any) => problem.message.length > 0), 'the sentence stays beside its code')
  })

  test('review problems carry a code a client can act on: a window that never opens, a forced phone that is not paired', async ({ client, assert }) => {
    await resetSendingSettings({ campaignWindowEnabled: true, campaignWindowDays: [] })
    const created = await client
      .post('/api/v1/campaigns')
      .header('x-api-key', testKeys.admin)
      .json({ name: 'x', body: 'Hi', audience: { numbers: ['+33612345678'] }, deviceId: '999999' })
    const review = await client.get(`/api/v1/campaigns/${created.body().id}/review`).header('x-api-key', testKeys.read)
    review.assertStatus(200)
    assert.deepEqual(
      review.body().problems.map((problem: any) => problem.code),
      ['WINDOW_NEVER_OPENS', 'FORCED_PHONE_NOT_PAIRED', 'NO_PHONE_AVAILABLE']
    )
    assert.isNull(review.body().estimatedEndAt)
  })

  test('a campaign forcing a phone that is not paired is not launched (422 CAMPAIGN_NOT_READY) and stays a draft', async ({ client, assert }) => {
    const created = await client
      .post('/api/v1/campaigns')
      .header('x-api-key', testKeys.admin)
      .json({ name: 'x', body: 'Hi', audience: { numbers: ['+33612345678'] }, deviceId: '999999' })
    const refused = await client.post(`/api/v1/campaigns/${created.body().id}/launch`).header('x-api-key', testKeys.admin)
    refused.assertStatus(422)
    assert.equal(refused.body().error.code, 'CAMPAIGN_NOT_READY')
    assert.equal(refused.body().error.message, 'The phone the campaign forces is not paired')
    assert.equal((await client.get(`/api/v1/campaigns/${created.body().id}`).header('x-api-key', testKeys.read)).body().status, 'draft')
  })
})
