import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import { useTestKeys } from '#tests/helpers/callers'
import { after, clearStatistics, seed, setTimezone, statistics, statisticsOk } from '#tests/functional/statistics/statistics_helpers'
import StatisticsCounters from '#database/migrations/0019_messages_statistics_counters'

const day = { from: '2026-05-01', to: '2026-05-02' }
const t = '2026-05-01T10:00:00.000Z'

test.group('Statistics: failure reasons', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearStatistics()
    await setTimezone('UTC')
  })

  test('counts failed messages per bucket and their error codes over the range, the most frequent first', async ({ client, assert }) => {
    await seed([
      { createdAt: '2026-05-01T10:00:00.000Z', status: 'failed', errorCode: 'NO_SERVICE', deviceId: '1', simSlot: 0 },
      { createdAt: '2026-05-01T11:00:00.000Z', status: 'failed', errorCode: 'NO_SERVICE', deviceId: '1', simSlot: 1 },
      { createdAt: '2026-05-02T10:00:00.000Z', status: 'failed', errorCode: 'RADIO_OFF', deviceId: '2', simSlot: 0, category: 'campaign', campaignId: 5 },
      { createdAt: '2026-05-02T10:00:00.000Z', status: 'failed', errorCode: null, deviceId: '2', simSlot: 0 },
      { createdAt: '2026-05-02T10:00:00.000Z', status: 'failed', errorCode: 'NO_SERVICE', deviceId: '2', simSlot: 0, category: 'campaign', campaignId: 5 },
      // Not failures: cancelled with a code, delivered.
      { createdAt: '2026-05-01T10:00:00.000Z', status: 'cancelled', errorCode: 'CONTACT_BLACKLISTED' },
      { createdAt: '2026-05-01T10:00:00.000Z', status: 'delivered' },
    ])
    const answer = await statisticsOk(client, 'failures', { from: '2026-05-01', to: '2026-05-03' })
    assert.deepInclude(answer, { from: '2026-05-01T00:00:00.000Z', to: '2026-05-03T00:00:00.000Z', interval: 'day', timezone: 'UTC' })
    assert.deepEqual(answer.buckets, [
      { start: '2026-05-01T00:00:00.000Z', failed: 2 },
      { start: '2026-05-02T00:00:00.000Z', failed: 3 },
    ])
    assert.deepEqual(answer.totals, {
      failed: 5,
      reasons: [
        { errorCode: 'NO_SERVICE', count: 3 },
        { errorCode: 'RADIO_OFF', count: 1 },
        { errorCode: null, count: 1 },
      ],
    })

    const reasons = async (query: Record<string, string>) =>
      (await statisticsOk(client, 'failures', { from: '2026-05-01', to: '2026-05-03', ...query })).totals.reasons
    assert.deepEqual(await reasons({ deviceId: '1' }), [{ errorCode: 'NO_SERVICE', count: 2 }])
    assert.deepEqual(await reasons({ deviceId: '1', simSlot: '1' }), [{ errorCode: 'NO_SERVICE', count: 1 }])
    assert.deepEqual(await reasons({ campaignId: '5' }), [
      { errorCode: 'NO_SERVICE', count: 1 },
      { errorCode: 'RADIO_OFF', count: 1 },
    ])
    assert.deepEqual(await reasons({ category: 'campaign', simSlot: '0' }), await reasons({ campaignId: '5' }))
    assert.deepEqual(await reasons({ category: 'info' }), [])
  })

  test('a retried failure leaves the counts; a new failure code replaces the old; a deleted message leaves them', async ({ client, assert }) => {
    const [first, second] = await seed([
      { createdAt: t, status: 'failed', errorCode: 'NO_SERVICE', deviceId: '1', simSlot: 0 },
      { createdAt: t, status: 'failed', errorCode: 'NO_SERVICE', deviceId: '1', simSlot: 0 },
    ])
    const totals = async () => (await statisticsOk(client, 'failures', day)).totals
    assert.deepEqual(await totals(), { failed: 2, reasons: [{ errorCode: 'NO_SERVICE', count: 2 }] })
    // Retried: queued again without a code, then failed again with another.
    await db.from('messages').where('id', first).update({ status: 'queued', error_code: null })
    assert.deepEqual(await totals(), { failed: 1, reasons: [{ errorCode: 'NO_SERVICE', count: 1 }] })
    await db.from('messages').where('id', first).update({ status: 'failed', error_code: 'RADIO_OFF' })
    await db.from('messages').where('id', second).update({ error_code: 'GENERIC_FAILURE' })
    assert.deepEqual((await totals()).reasons, [
      { errorCode: 'GENERIC_FAILURE', count: 1 },
      { errorCode: 'RADIO_OFF', count: 1 },
    ])
    await db.from('messages').where('id', second).delete()
    assert.deepEqual(await totals(), { failed: 1, reasons: [{ errorCode: 'RADIO_OFF', count: 1 }] })
  })

  test('failure buckets are local days of the platform time zone (a 25-hour autumn day)', async ({ client, assert }) => {
    await seed([
      { createdAt: '2026-10-24T22:30:00.000Z', status: 'failed', errorCode: 'A' }, // 00:30 on the 25th (CEST)
      { createdAt: '2026-10-25T22:30:00.000Z', status: 'failed', errorCode: 'B' }, // 23:30 on the 25th (CET)
      { createdAt: '2026-10-25T23:30:00.000Z', status: 'failed', errorCode: 'C' }, // 00:30 on the 26th
    ])
    await setTimezone('Europe/Paris')
    const answer = await statisticsOk(client, 'failures', { from: '2026-10-25', to: '2026-10-26' })
    assert.deepEqual(answer.buckets, [{ start: '2026-10-24T22:00:00.000Z', failed: 2 }])
    assert.deepEqual(answer.totals.reasons.map((reason: any) => reason.errorCode), ['A', 'B'])
    const utc = await statisticsOk(client, 'failures', { from: '2026-10-25', to: '2026-10-26', tz: 'UTC' })
    assert.deepEqual(utc.totals.reasons.map((reason: any) => reason.errorCode), ['B', 'C'])
  })

  test('refuses bad input with VALIDATION_ERROR', async ({ client, assert }) => {
    for (const [query, field] of [
      [{ simSlot: '3' }, 'simSlot'],
      [{ campaignId: 'x' }, 'campaignId'],
      [{ category: 'spam' }, 'category'],
      [{ from: '2026-13-01' }, 'from'],
      [{ interval: 'minute' }, 'interval'],
    ] as const) {
      const response = await statistics(client, 'failures', query)
      response.assertStatus(400)
      assert.equal(response.body().error.code, 'VALIDATION_ERROR')
      assert.include(response.body().error.details.map((detail: any) => detail.field), field)
    }
  })
})

test.group('Statistics: latency', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearStatistics()
    await setTimezone('UTC')
  })

  test('p50 and p95 from accept to sent and from sent to delivered, as histogram buckets', async ({ client, assert }) => {
    await seed([
      { createdAt: t, sentAt: after(t, 0.5), deliveredAt: after(t, 10.5), status: 'delivered', deviceId: '1', simSlot: 0 }, // 0.5 s, 10 s
      { createdAt: t, sentAt: after(t, 4), deliveredAt: after(t, 29), status: 'delivered', deviceId: '1', simSlot: 0 }, // 4 s, 25 s
      { createdAt: t, sentAt: after(t, 4.9), status: 'sent', deviceId: '1', simSlot: 1 }, // 4.9 s, no delivery yet
      { createdAt: t, sentAt: after(t, 100), deliveredAt: after(t, 100 + 90_000), status: 'delivered', deviceId: '2', simSlot: 0 }, // 100 s, 25 h
      // Scheduled for 11:00: its wait counts from then.
      { createdAt: t, scheduledAt: '2026-05-01T11:00:00.000Z', sentAt: '2026-05-01T11:00:02.000Z', status: 'sent', deviceId: '2', simSlot: 0 },
      // Not counted: not sent yet, a delivery report without a sent time, inbound.
      { createdAt: t, status: 'queued' },
      { createdAt: t, deliveredAt: after(t, 5), status: 'delivered', deviceId: '1', simSlot: 0 },
      { createdAt: t, direction: 'in', deviceId: '1', simSlot: 0 },
    ])
    const answer = await statisticsOk(client, 'latency', day)
    assert.deepInclude(answer, { from: '2026-05-01T00:00:00.000Z', to: '2026-05-02T00:00:00.000Z', interval: 'day', timezone: 'UTC' })
    // Sent: 0.5, 2, 4, 4.9, 100 s. p50 is the 3rd fastest (3 to 5 s), p95 the 5th (90 to 120 s).
    assert.deepEqual(answer.buckets, [
      {
        start: '2026-05-01T00:00:00.000Z',
        toSent: { count: 5, p50: { from: 3, to: 5 }, p95: { from: 90, to: 120 } },
        toDelivered: { count: 3, p50: { from: 20, to: 30 }, p95: { from: 86400, to: null } },
      },
    ])
    const nonZero = (histogram: any[]) => histogram.filter((bucket) => bucket.count > 0)
    assert.deepEqual(nonZero(answer.totals.toSent.histogram), [
      { from: 0, to: 1, count: 1 },
      { from: 2, to: 3, count: 1 },
      { from: 3, to: 5, count: 2 },
      { from: 90, to: 120, count: 1 },
    ])
    assert.deepEqual(nonZero(answer.totals.toDelivered.histogram), [
      { from: 10, to: 15, count: 1 },
      { from: 20, to: 30, count: 1 },
      { from: 86400, to: null, count: 1 },
    ])
    assert.lengthOf(answer.totals.toSent.histogram, 29)
    assert.deepInclude(answer.totals.toSent, { count: 5, p50: { from: 3, to: 5 }, p95: { from: 90, to: 120 } })

    const figures = async (query: Record<string, string>) => (await statisticsOk(client, 'latency', { ...day, ...query })).totals
    const byPhone = await figures({ deviceId: '1' })
    assert.deepInclude(byPhone.toSent, { count: 3, p50: { from: 3, to: 5 }, p95: { from: 3, to: 5 } })
    assert.deepInclude(byPhone.toDelivered, { count: 2, p50: { from: 10, to: 15 } })
    assert.deepInclude((await figures({ deviceId: '1', simSlot: '1' })).toSent, { count: 1, p50: { from: 3, to: 5 } })
    assert.deepInclude((await figures({ simSlot: '0', deviceId: '2' })).toSent, { count: 2, p50: { from: 2, to: 3 }, p95: { from: 90, to: 120 } })
    const none = await figures({ deviceId: '9' })
    assert.deepInclude(none.toSent, { count: 0, p50: null, p95: null })
  })

  test('latency follows the message: counted when sent and delivered, gone when deleted', async ({ client, assert }) => {
    const [id] = await seed([{ createdAt: t, status: 'queued' }])
    const totals = async () => (await statisticsOk(client, 'latency', day)).totals
    assert.equal((await totals()).toSent.count, 0)
    // Handed to a phone: no time yet, nothing counted.
    await db.from('messages').where('id', id).update({ status: 'dispatched', device_id: '1', sim_slot: 0 })
    assert.equal((await totals()).toSent.count, 0)
    await db.from('messages').where('id', id).update({ status: 'sent', sent_at: after(t, 8) })
    assert.deepInclude((await totals()).toSent, { count: 1, p50: { from: 7, to: 10 } })
    await db.from('messages').where('id', id).update({ status: 'delivered', delivered_at: after(t, 8 + 61) })
    assert.deepInclude((await totals()).toDelivered, { count: 1, p50: { from: 60, to: 90 } })
    assert.equal((await statisticsOk(client, 'latency', { ...day, deviceId: '1', simSlot: '0' })).totals.toDelivered.count, 1)
    await db.from('messages').where('id', id).delete()
    const gone = await totals()
    assert.equal(gone.toSent.count + gone.toDelivered.count, 0)
  })

  test('per hour in the platform time zone; a zone off UTC by half an hour takes its edges at the UTC hour before', async ({ client, assert }) => {
    await seed([
      { createdAt: '2026-05-01T08:10:00.000Z', sentAt: '2026-05-01T08:10:01.500Z', status: 'sent' },
      { createdAt: '2026-05-01T09:10:00.000Z', sentAt: '2026-05-01T09:10:20.000Z', status: 'sent' },
      { createdAt: '2026-05-01T18:10:00.000Z', sentAt: '2026-05-01T18:10:20.000Z', status: 'sent' }, // 23:40 in Kolkata
    ])
    await setTimezone('Europe/Paris')
    const byHour = await statisticsOk(client, 'latency', { from: '2026-05-01T10:00', to: '2026-05-01T12:00', interval: 'hour' })
    assert.deepEqual(byHour.buckets.map((bucket: any) => [bucket.start, bucket.toSent.count, bucket.toSent.p50]), [
      ['2026-05-01T08:00:00.000Z', 1, { from: 1, to: 2 }],
      ['2026-05-01T09:00:00.000Z', 1, { from: 20, to: 30 }],
    ])
    // Kolkata's 2 May starts at 18:30 UTC; latency counts from the hour before (18:00 UTC).
    const kolkata = await statisticsOk(client, 'latency', { from: '2026-05-01', to: '2026-05-03', tz: 'Asia/Kolkata' })
    assert.deepEqual(kolkata.buckets.map((bucket: any) => [bucket.start, bucket.toSent.count]), [
      ['2026-04-30T18:30:00.000Z', 2],
      ['2026-05-01T18:30:00.000Z', 1],
    ])
  })

  test('in a half-hour zone, a latency bucket answers the UTC hour at or before its local start, to the one before its end', async ({ client, assert }) => {
    // 08:10 UTC is 13:40 in Kolkata (+05:30).
    await seed([{ createdAt: '2026-05-01T08:10:00.000Z', sentAt: '2026-05-01T08:10:04.000Z', status: 'sent' }])
    const hours = { from: '2026-05-01T13:00', to: '2026-05-01T15:00', interval: 'hour', tz: 'Asia/Kolkata' }
    // The local hours 13:00 and 14:00 start at 07:30 and 08:30 UTC: their latency is that of the
    // messages created 07:00-08:00 and 08:00-09:00 UTC, so the message shows at 14:00...
    const latency = await statisticsOk(client, 'latency', hours)
    assert.deepEqual(latency.buckets.map((bucket: any) => [bucket.start, bucket.toSent.count, bucket.toSent.p50]), [
      ['2026-05-01T07:30:00.000Z', 0, null],
      ['2026-05-01T08:30:00.000Z', 1, { from: 3, to: 5 }],
    ])
    // ...while the volume, counted per quarter hour, places it at 13:00, where it was created.
    const volume = await statisticsOk(client, 'messages', hours)
    assert.deepEqual(volume.buckets.map((bucket: any) => [bucket.start, bucket.out.sent]), [
      ['2026-05-01T07:30:00.000Z', 1],
      ['2026-05-01T08:30:00.000Z', 0],
    ])
    // Nepal (+05:45) alike: its 1 May starts at 18:15 UTC on 30 April, its latency at 18:00.
    await seed([{ createdAt: '2026-04-30T18:05:00.000Z', sentAt: '2026-04-30T18:05:04.000Z', status: 'sent' }])
    const nepal = await statisticsOk(client, 'latency', { from: '2026-05-01', to: '2026-05-02', tz: 'Asia/Kathmandu' })
    assert.deepEqual(nepal.buckets.map((bucket: any) => [bucket.start, bucket.toSent.count]), [['2026-04-30T18:15:00.000Z', 2]])
  })

  test('the counters migration counts failures and latency of the messages a database already holds', async ({ client, assert }) => {
    await seed([
      { createdAt: t, status: 'failed', errorCode: 'NO_SERVICE', deviceId: '1', simSlot: 0 },
      { createdAt: t, sentAt: after(t, 2), deliveredAt: after(t, 12), status: 'delivered', deviceId: '1', simSlot: 0 },
      { createdAt: t, sentAt: after(t, 40), status: 'sent', deviceId: '1', simSlot: 1, category: 'campaign', campaignId: 2 },
    ])
    const read = async () => [
      await statisticsOk(client, 'failures', day),
      await statisticsOk(client, 'latency', day),
      await statisticsOk(client, 'messages/breakdown', { ...day, groupBy: 'sim' }),
      await statisticsOk(client, 'messages', { ...day, campaignId: '2' }),
    ]
    const before = await read()
    await new StatisticsCounters(db.connection(), 'down', false).execDown()
    await new StatisticsCounters(db.connection(), 'up', false).execUp()
    assert.deepEqual(await read(), before)
    assert.equal(before[0].totals.failed, 1)
    assert.equal(before[1].totals.toSent.count, 2)
    assert.equal(before[3].totals.out.sent, 1)
  })

  test('refuses bad input with VALIDATION_ERROR', async ({ client, assert }) => {
    for (const [query, field] of [
      [{ simSlot: '2' }, 'simSlot'],
      [{ deviceId: '-1' }, 'deviceId'],
      [{ tz: 'Europe/Atlantis' }, 'tz'],
      [{ from: '2025-01-01', to: '2026-03-01' }, 'to'],
    ] as const) {
      const response = await statistics(client, 'latency', query)
      response.assertStatus(400)
      assert.equal(response.body().error.code, 'VALIDATION_ERROR')
      assert.include(response.body().error.details.map((detail: any) => detail.field), field)
    }
  })
})
