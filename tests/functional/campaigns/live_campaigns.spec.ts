import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { ManualClock } from '#core/time/clock'
import { LiveCampaigns } from '#modules/campaigns/listeners/live_campaigns'
import { CampaignBook } from '#modules/campaigns/services/campaign_book'
import { clearCampaigns } from '#tests/functional/campaigns/campaign_helpers'

test.group('Campaigns live channel', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearCampaigns())

  test('progress is sent at most once a second per campaign (the last change always goes out); a status change at once', async ({ client, assert }) => {
    const created = await client.post('/api/v1/campaigns').header('x-api-key', testKeys.admin).json({ name: 'Live', body: 'Hi', audience: { numbers: ['+33612345678'] } })
    const id = Number(created.body().id)
    const clock = new ManualClock('2026-01-15T10:00:00.000Z')
    const sent: Array<{ channel: string; payload: any }> = []
    const live = new LiveCampaigns(
      async () => ({ broadcast: (channel: string, payload?: unknown) => void sent.push({ channel, payload }) }),
      () => app.container.make(CampaignBook),
      async () => clock
    )
    const flush = async () => {
      for (let round = 0; round < 5; round++) await new Promise((resolve) => setTimeout(resolve, 10))
    }
    for (let change = 0; change < 5; change++) live.changed(id, false)
    await flush()
    assert.lengthOf(sent, 1)
    await clock.advance(500)
    live.changed(id, false)
    await flush()
    assert.lengthOf(sent, 1, 'coalesced within the second')
    await clock.advance(500)
    await flush()
    assert.lengthOf(sent, 2, 'the trailing change goes out after the second')
    live.changed(id, true)
    await flush()
    assert.lengthOf(sent, 3, 'a status change goes at once')
    assert.deepEqual(Object.keys(sent[0].payload.campaign).sort(), ['counts', 'estimatedEndAt', 'id', 'ratePerMinute', 'resumesAt', 'status'])
    assert.equal(sent[0].channel, 'campaigns')
    assert.equal(sent[0].payload.type, 'campaign.changed')
    live.stop()
  })
})
