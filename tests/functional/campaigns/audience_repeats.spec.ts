import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { useManualClock } from '#tests/helpers/clock'
import { clearCampaigns, createContacts, createGroupOf, resetSendingSettings, useCampaignJob } from '#tests/functional/campaigns/campaign_helpers'

async function phoneOf(contactId: number): Promise<string> {
  return (await db.from('contacts').where('id', contactId).first()).phone
}

/**
 * The review's exclusions, then the launched campaign's counts and messages: a contact met in two
 * sources is one recipient and one repeat, and receives one SMS.
 */
async function reviewAndLaunch(client: any, jobs: Awaited<ReturnType<typeof useCampaignJob>>, audience: Record<string, string[]>) {
  const created = await client.post('/api/v1/campaigns').header('x-api-key', testKeys.admin).json({ name: 'Repeats', body: 'Hi {{firstName}}', audience })
  created.assertStatus(201)
  const id = created.body().id as string
  const review = await client.get(`/api/v1/campaigns/${id}/review`).header('x-api-key', testKeys.read)
  review.assertStatus(200)
  ;(await client.post(`/api/v1/campaigns/${id}/launch`).header('x-api-key', testKeys.admin)).assertStatus(200)
  await jobs.settle()
  const campaign = (await client.get(`/api/v1/campaigns/${id}`).header('x-api-key', testKeys.read)).body()
  const messages = await db.from('messages').where('campaign_id', Number(id)).select('phone')
  return { review: review.body(), campaign, phones: messages.map((message) => message.phone as string) }
}

test.group('Campaigns: a contact met twice is counted as a repeat and sent once', (group) => {
  let clock: ReturnType<typeof useManualClock>
  let jobs: Awaited<ReturnType<typeof useCampaignJob>>
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearCampaigns()
    await resetSendingSettings()
    clock = useManualClock('2026-01-15T10:00:00.000Z')
    jobs = await useCampaignJob(clock.clock)
    return async () => {
      await jobs.stop()
      clock.restore()
    }
  })

  test('a contact in two groups: one recipient, one duplicate in the review and in counts.excluded, one SMS', async ({ client, assert }) => {
    const [first, shared, last] = await createContacts(3)
    const a = await createGroupOf([first, shared], 'A')
    const b = await createGroupOf([shared, last], 'B')
    const { review, campaign, phones } = await reviewAndLaunch(client, jobs, { groupIds: [String(a), String(b)] })

    assert.equal(review.recipients, 3)
    assert.deepEqual(review.excluded, { optedOut: 0, duplicates: 1, invalid: 0 })
    assert.equal(campaign.counts.total, 3)
    assert.deepEqual(campaign.counts.excluded, { optedOut: 0, duplicates: 1, invalid: 0 })
    assert.lengthOf(phones, 3)
    assert.equal(phones.filter((phone) => phone === '+33610000001').length, 1, 'the shared contact receives one SMS')
    assert.equal(await phoneOf(shared), '+33610000001')
  })

  test('a contact named in contactIds and also in a group: one recipient, one duplicate, one SMS', async ({ client, assert }) => {
    const contacts = await createContacts(4)
    const groupId = await createGroupOf(contacts.slice(0, 3))
    const { review, campaign, phones } = await reviewAndLaunch(client, jobs, { groupIds: [String(groupId)], contactIds: [String(contacts[1]), String(contacts[3])] })

    assert.equal(review.recipients, 4)
    assert.deepEqual(review.excluded, { optedOut: 0, duplicates: 1, invalid: 0 })
    assert.equal(campaign.counts.total, 4)
    assert.deepEqual(campaign.counts.excluded, { optedOut: 0, duplicates: 1, invalid: 0 })
    assert.lengthOf(phones, 4)
    assert.equal(new Set(phones).size, 4, 'each number receives the campaign once')
  })

  test('every further meeting is one more repeat: two groups, named, and typed; an opted-out contact met twice is one opt-out and one repeat', async ({ client, assert }) => {
    const contacts = await createContacts(3, { blacklistedEvery: 2 })
    // contacts[0] and contacts[2] opted out; contacts[1] is met four times.
    const a = await createGroupOf(contacts, 'A')
    const b = await createGroupOf(contacts.slice(1), 'B')
    const { review, campaign, phones } = await reviewAndLaunch(client, jobs, {
      groupIds: [String(a), String(b), String(a)],
      contactIds: [String(contacts[1])],
      numbers: [await phoneOf(contacts[1])],
    })

    // contacts[1]: groups A and B, named, typed (3 repeats); contacts[2]: groups A and B (opted out once, 1 repeat).
    // A group named twice is one group.
    assert.deepEqual(review.excluded, { optedOut: 2, duplicates: 4, invalid: 0 })
    assert.deepEqual(campaign.counts.excluded, { optedOut: 2, duplicates: 4, invalid: 0 })
    assert.equal(campaign.counts.total, 1)
    assert.deepEqual(phones, ['+33610000001'])
  })
})
