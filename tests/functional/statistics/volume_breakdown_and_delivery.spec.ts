import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { useTestKeys } from '#tests/helpers/callers'
import { clearStatistics, out, seed, setTimezone, statistics, statisticsOk } from '#tests/functional/statistics/statistics_helpers'

const day = { from: '2026-05-01', to: '2026-05-02' }

test.group('Statistics: volume by SIM and campaign, breakdowns, delivery rate', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearStatistics()
    await setTimezone('UTC')
  })
  group.teardown(() => setTimezone('UTC'))

  test('message volume filters by SIM slot and campaign, alone or with the phone', async ({ client, assert }) => {
    await seed([
      { createdAt: '2026-05-01T10:00:00.000Z', deviceId: '1', simSlot: 0, category: 'campaign', campaignId: 7 },
      { createdAt: '2026-05-01T10:05:00.000Z', deviceId: '1', simSlot: 1, category: 'campaign', campaignId: 7, status: 'delivered' },
      { createdAt: '2026-05-01T10:10:00.000Z', deviceId: '2', simSlot: 1, category: 'campaign', campaignId: 8, status: 'failed' },
      { createdAt: '2026-05-01T10:15:00.000Z', deviceId: '2', simSlot: 1, direction: 'in' },
      { createdAt: '2026-05-01T10:20:00.000Z', status: 'queued' },
    ])
    const totals = async (query: Record<string, string>) => (await statisticsOk(client, 'messages', { ...day, ...query })).totals
    assert.deepEqual(await totals({ simSlot: '1' }), { out: out({ delivered: 1, failed: 1 }), in: { received: 1 } })
    assert.deepEqual(await totals({ simSlot: '0' }), { out: out({ sent: 1 }), in: { received: 0 } })
    assert.deepEqual(await totals({ deviceId: '2', simSlot: '1' }), { out: out({ failed: 1 }), in: { received: 1 } })
    assert.deepEqual(await totals({ campaignId: '7' }), { out: out({ sent: 1, delivered: 1 }), in: { received: 0 } })
    assert.deepEqual(await totals({ campaignId: '8', simSlot: '1' }), { out: out({ failed: 1 }), in: { received: 0 } })
    assert.deepEqual(await totals({ campaignId: '9' }), { out: out(), in: { received: 0 } })

    // A message handed to another phone and SIM moves with it.
    await db.from('messages').where('status', 'queued').update({ status: 'dispatched', device_id: '2', sim_slot: 0 })
    assert.deepEqual(await totals({ deviceId: '2', simSlot: '0' }), { out: out({ dispatched: 1 }), in: { received: 0 } })
  })

  test('inbound per day is the volume of direction=in', async ({ client, assert }) => {
    await seed([
      { createdAt: '2026-05-01T08:00:00.000Z', direction: 'in', deviceId: '1', simSlot: 0 },
      { createdAt: '2026-05-02T08:00:00.000Z', direction: 'in', deviceId: '1', simSlot: 0 },
      { createdAt: '2026-05-02T09:00:00.000Z', direction: 'in', deviceId: '1', simSlot: 1 },
      { createdAt: '2026-05-02T09:00:00.000Z' },
    ])
    const answer = await statisticsOk(client, 'messages', { from: '2026-05-01', to: '2026-05-03', direction: 'in' })
    assert.deepEqual(answer.buckets.map((bucket: any) => [bucket.start, bucket.in.received, bucket.out.sent]), [
      ['2026-05-01T00:00:00.000Z', 1, 0],
      ['2026-05-02T00:00:00.000Z', 2, 0],
    ])
  })

  test('breakdown per phone, SIM, campaign and category: totals and delivery rate per group, busiest first', async ({ client, assert }) => {
    await seed([
      { createdAt: '2026-05-01T10:00:00.000Z', deviceId: '1', simSlot: 0, status: 'delivered' },
      { createdAt: '2026-05-01T10:00:00.000Z', deviceId: '1', simSlot: 0, status: 'delivered' },
      { createdAt: '2026-05-01T10:00:00.000Z', deviceId: '1', simSlot: 1, status: 'failed', category: 'campaign', campaignId: 4 },
      { createdAt: '2026-05-01T10:00:00.000Z', deviceId: '2', simSlot: 0, status: 'sent', category: 'campaign', campaignId: 4 },
      { createdAt: '2026-05-01T11:00:00.000Z', deviceId: '2', simSlot: 0, direction: 'in', category: 'conversation' },
      { createdAt: '2026-05-01T11:00:00.000Z', status: 'queued', category: 'info' },
      // Outside the range: not counted.
      { createdAt: '2026-05-02T00:00:00.000Z', deviceId: '3', simSlot: 0 },
    ])
    const groups = async (groupBy: string, query: Record<string, string> = {}) => {
      const answer = await statisticsOk(client, 'messages/breakdown', { ...day, groupBy, ...query })
      assert.equal(answer.groupBy, groupBy)
      assert.equal(answer.from, '2026-05-01T00:00:00.000Z')
      return answer.groups
    }

    const byDevice = await groups('device')
    assert.deepEqual(byDevice.map((entry: any) => entry.key), [{ deviceId: '1' }, { deviceId: '2' }, { deviceId: null }])
    assert.deepEqual(byDevice[0].totals, { out: out({ delivered: 2, failed: 1 }), in: { received: 0 } })
    assert.deepEqual(byDevice[0].delivery, { delivered: 2, failed: 1, sent: 0, rate: 0.6667 })
    assert.deepEqual(byDevice[1].totals, { out: out({ sent: 1 }), in: { received: 1 } })
    assert.deepEqual(byDevice[1].delivery, { delivered: 0, failed: 0, sent: 1, rate: 0 })
    assert.deepEqual(byDevice[2].delivery, { delivered: 0, failed: 0, sent: 0, rate: null })

    // Equal volumes come in the order of their keys (as JSON).
    const bySim = await groups('sim')
    assert.deepEqual(bySim.map((entry: any) => entry.key), [
      { deviceId: '1', simSlot: 0 },
      { deviceId: '2', simSlot: 0 },
      { deviceId: '1', simSlot: 1 },
      { deviceId: null, simSlot: null },
    ])
    assert.deepEqual(bySim[2].delivery, { delivered: 0, failed: 1, sent: 0, rate: 0 })

    const byCampaign = await groups('campaign')
    assert.deepEqual(byCampaign.map((entry: any) => [entry.key, entry.delivery.rate]), [
      [{ campaignId: null }, 1],
      [{ campaignId: '4' }, 0],
    ])

    const byCategory = await groups('category', { direction: 'out' })
    assert.deepEqual(byCategory.map((entry: any) => entry.key.category), ['campaign', 'transactional', 'info'])
    assert.deepEqual(byCategory[2].totals.out, out({ queued: 1 }))

    // Filters apply before grouping.
    assert.deepEqual((await groups('sim', { deviceId: '1' })).map((entry: any) => entry.key), [
      { deviceId: '1', simSlot: 0 },
      { deviceId: '1', simSlot: 1 },
    ])
    assert.deepEqual(await groups('device', { campaignId: '99' }), [])
  })

  test('busiest first counts inbound messages too; direction=out ranks by outbound alone', async ({ client, assert }) => {
    await seed([
      // Phone 1: two outbound. Phone 2: one outbound and two inbound, so three in all.
      { createdAt: '2026-05-01T10:00:00.000Z', deviceId: '1', simSlot: 0, status: 'delivered' },
      { createdAt: '2026-05-01T10:00:00.000Z', deviceId: '1', simSlot: 0, status: 'failed' },
      { createdAt: '2026-05-01T10:00:00.000Z', deviceId: '2', simSlot: 0, status: 'delivered' },
      { createdAt: '2026-05-01T11:00:00.000Z', deviceId: '2', simSlot: 0, direction: 'in' },
      { createdAt: '2026-05-01T11:00:00.000Z', deviceId: '2', simSlot: 0, direction: 'in' },
      // Phone 3 only received: it is a group too, with no delivery rate.
      { createdAt: '2026-05-01T12:00:00.000Z', deviceId: '3', simSlot: 1, direction: 'in' },
    ])
    const order = async (query: Record<string, string>) =>
      (await statisticsOk(client, 'messages/breakdown', { ...day, groupBy: 'device', ...query })).groups.map((entry: any) => [
        entry.key.deviceId,
        entry.delivery.rate,
      ])
    assert.deepEqual(await order({}), [['2', 1], ['1', 0.5], ['3', null]])
    assert.deepEqual(await order({ direction: 'out' }), [['1', 0.5], ['2', 1]])
    assert.deepEqual(await order({ direction: 'in' }), [['2', null], ['3', null]])
  })

  test('a campaign in a breakdown key is a string id, like every id of the API', async ({ client, assert }) => {
    await seed([
      { createdAt: '2026-05-01T10:00:00.000Z', category: 'campaign', campaignId: 12, status: 'delivered' },
      { createdAt: '2026-05-01T10:00:00.000Z', category: 'campaign', campaignId: 12, status: 'delivered' },
      { createdAt: '2026-05-01T10:00:00.000Z', category: 'campaign', campaignId: 9 },
      { createdAt: '2026-05-01T10:00:00.000Z' },
    ])
    const answer = await statisticsOk(client, 'messages/breakdown', { ...day, groupBy: 'campaign' })
    assert.deepEqual(answer.groups.map((entry: any) => entry.key), [{ campaignId: '12' }, { campaignId: '9' }, { campaignId: null }])
    // The key is what the campaignId filter takes back.
    const one = await statisticsOk(client, 'messages', { ...day, campaignId: answer.groups[0].key.campaignId })
    assert.equal(one.totals.out.delivered, 2)
  })

  test('an unknown query parameter is refused, on every statistics endpoint, with VALIDATION_ERROR naming it', async ({ client, assert }) => {
    await seed([{ createdAt: '2026-05-01T10:00:00.000Z', deviceId: '1', simSlot: 0 }])
    for (const [endpoint, query, unknown] of [
      ['messages', { deviceid: '2' }, 'deviceid'],
      ['messages/breakdown', { groupBy: 'device', campaign: '4' }, 'campaign'],
      ['delivery-rate', { direction: 'out' }, 'direction'],
      ['failures', { timezone: 'UTC' }, 'timezone'],
      ['latency', { campaignId: '4' }, 'campaignId'],
      ['links', { limit: '5', page: '2' }, 'page'],
      ['opt-outs', { deviceId: '1' }, 'deviceId'],
    ] as const) {
      const response = await statistics(client, endpoint, { ...day, ...query })
      assert.equal(response.status(), 400, `${endpoint} ${JSON.stringify(query)}`)
      const error = response.body().error
      assert.equal(error.code, 'VALIDATION_ERROR')
      assert.deepEqual(error.details.map((detail: any) => [detail.field, detail.rule]), [[unknown, 'unknown']])
      assert.match(error.details[0].message, /^Unknown query parameter; known here: from, to, interval, tz/)
    }
    // Every parameter unknown is named, each once.
    const two = await statistics(client, 'messages', { ...day, deviceid: '1', simslot: '0' })
    assert.deepEqual(two.body().error.details.map((detail: any) => detail.field), ['deviceid', 'simslot'])
    // Known parameters alone still answer.
    ;(await statistics(client, 'messages', { ...day, deviceId: '1' })).assertStatus(200)
  })

  test('delivery rate = delivered / (delivered + failed + sent) of outbound messages created in each bucket', async ({ client, assert }) => {
    await seed([
      { createdAt: '2026-05-01T09:00:00.000Z', status: 'delivered', deviceId: '1', simSlot: 0 },
      { createdAt: '2026-05-01T09:00:00.000Z', status: 'delivered', deviceId: '1', simSlot: 1 },
      { createdAt: '2026-05-01T09:00:00.000Z', status: 'delivered', deviceId: '2', simSlot: 0 },
      { createdAt: '2026-05-01T09:00:00.000Z', status: 'failed', deviceId: '2', simSlot: 0 },
      { createdAt: '2026-05-01T09:00:00.000Z', status: 'sent', deviceId: '1', simSlot: 0 },
      // Not in the rate: not reached a phone yet, cancelled, or inbound.
      { createdAt: '2026-05-01T09:00:00.000Z', status: 'queued' },
      { createdAt: '2026-05-01T09:00:00.000Z', status: 'cancelled' },
      { createdAt: '2026-05-01T09:00:00.000Z', direction: 'in', deviceId: '1', simSlot: 0 },
      { createdAt: '2026-05-02T09:00:00.000Z', status: 'delivered', category: 'campaign', campaignId: 3, deviceId: '1', simSlot: 0 },
    ])
    const answer = await statisticsOk(client, 'delivery-rate', { from: '2026-05-01', to: '2026-05-04' })
    assert.deepInclude(answer, { from: '2026-05-01T00:00:00.000Z', to: '2026-05-04T00:00:00.000Z', interval: 'day', timezone: 'UTC' })
    assert.deepEqual(answer.buckets, [
      { start: '2026-05-01T00:00:00.000Z', delivered: 3, failed: 1, sent: 1, rate: 0.6 },
      { start: '2026-05-02T00:00:00.000Z', delivered: 1, failed: 0, sent: 0, rate: 1 },
      { start: '2026-05-03T00:00:00.000Z', delivered: 0, failed: 0, sent: 0, rate: null },
    ])
    assert.deepEqual(answer.totals, { delivered: 4, failed: 1, sent: 1, rate: 0.6667 })

    const rate = async (query: Record<string, string>) => (await statisticsOk(client, 'delivery-rate', { from: '2026-05-01', to: '2026-05-04', ...query })).totals.rate
    assert.equal(await rate({ deviceId: '1' }), 0.75)
    assert.equal(await rate({ deviceId: '2', simSlot: '0' }), 0.5)
    assert.equal(await rate({ campaignId: '3' }), 1)
    assert.equal(await rate({ category: 'info' }), null)

    // A late delivery report raises the rate of the day the message was created.
    await db.from('messages').where('status', 'sent').update({ status: 'delivered' })
    assert.equal((await statisticsOk(client, 'delivery-rate', day)).buckets[0].rate, 0.8)
  })

  test('the breakdown and the delivery rate follow the platform time zone and daylight saving', async ({ client, assert }) => {
    await seed([
      { createdAt: '2026-03-28T23:30:00.000Z', status: 'delivered', deviceId: '1', simSlot: 0 }, // 00:30 on the 29th in Paris
      { createdAt: '2026-03-29T21:30:00.000Z', status: 'failed', deviceId: '1', simSlot: 0 }, // 23:30 on the 29th (CEST)
      { createdAt: '2026-03-29T22:30:00.000Z', status: 'failed', deviceId: '1', simSlot: 0 }, // 00:30 on the 30th
    ])
    await setTimezone('Europe/Paris')
    const rate = await statisticsOk(client, 'delivery-rate', { from: '2026-03-29', to: '2026-03-30' })
    assert.deepEqual(rate.buckets, [{ start: '2026-03-28T23:00:00.000Z', delivered: 1, failed: 1, sent: 0, rate: 0.5 }])
    assert.equal(rate.to, '2026-03-29T22:00:00.000Z')
    const byHour = await statisticsOk(client, 'delivery-rate', { from: '2026-03-29', to: '2026-03-30', interval: 'hour' })
    assert.lengthOf(byHour.buckets, 23)
    const breakdown = await statisticsOk(client, 'messages/breakdown', { from: '2026-03-29', to: '2026-03-30', groupBy: 'device' })
    assert.deepEqual(breakdown.groups[0].delivery, { delivered: 1, failed: 1, sent: 0, rate: 0.5 })
    const utc = await statisticsOk(client, 'messages/breakdown', { from: '2026-03-29', to: '2026-03-30', groupBy: 'device', tz: 'UTC' })
    assert.deepEqual(utc.groups[0].delivery, { delivered: 0, failed: 2, sent: 0, rate: 0 })
  })

  test('refuses bad filters and a missing or unknown groupBy with VALIDATION_ERROR naming the field', async ({ client, assert }) => {
    const refused = async (endpoint: string, query: Record<string, string>, field: string) => {
      const response = await statistics(client, endpoint, query)
      response.assertStatus(400)
      assert.equal(response.body().error.code, 'VALIDATION_ERROR')
      assert.include(response.body().error.details.map((detail: any) => detail.field), field)
    }
    await refused('messages', { simSlot: '2' }, 'simSlot')
    await refused('messages', { simSlot: '-1' }, 'simSlot')
    await refused('messages', { campaignId: 'abc' }, 'campaignId')
    await refused('messages', { campaignId: '1.5' }, 'campaignId')
    await refused('messages/breakdown', {}, 'groupBy')
    await refused('messages/breakdown', { groupBy: 'phone' }, 'groupBy')
    await refused('messages/breakdown', { groupBy: 'sim', simSlot: 'x' }, 'simSlot')
    await refused('messages/breakdown', { groupBy: 'sim', from: '2026-05-02', to: '2026-05-01' }, 'to')
    await refused('delivery-rate', { deviceId: 'one' }, 'deviceId')
    await refused('delivery-rate', { tz: 'Nowhere/Else' }, 'tz')
    await refused('delivery-rate', { from: '2026-05-01', to: '2026-05-08T01:00', interval: 'hour' }, 'to')
  })
})
