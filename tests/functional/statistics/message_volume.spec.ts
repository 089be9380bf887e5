import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import type { ApiClient } from '@japa/api-client'
import { MessageLedger } from '#modules/messages/public'
import { useManualClock } from '#tests/helpers/clock'
import { asBrowser, signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging, sendAs } from '#tests/helpers/messages'
import StatisticsCounters from '#database/migrations/0019_messages_statistics_counters'
import { out, seed, setTimezone } from '#tests/functional/statistics/statistics_helpers'

function volume(client: ApiClient, query: Record<string, string>, key = testKeys.read) {
  return client.get('/api/v1/statistics/messages').qs(query).header('x-api-key', key)
}

async function volumeOk(client: ApiClient, query: Record<string, string>) {
  const response = await volume(client, query)
  response.assertStatus(200)
  return response.body()
}

/** Per bucket: [start, out counts that are not zero, received]. */
function compact(answer: any) {
  return answer.buckets.map((bucket: any) => [
    bucket.start,
    Object.fromEntries(Object.entries(bucket.out).filter(([, count]) => count !== 0)),
    bucket.in.received,
  ])
}

test.group('Statistics: message volume per day and hour', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearMessaging()
    await setTimezone('UTC')
  })
  group.teardown(() => setTimezone('UTC'))

  test('counts messages created in each day by their current status, every day present', async ({ client, assert }) => {
    const { clock, restore } = useManualClock('2026-05-01T08:00:00.000Z')
    try {
      const sent: string[] = []
      for (const advance of [0, 3_600_000, 3_600_000, 2 * 86_400_000]) {
        await clock.advance(advance)
        sent.push((await sendAs(client, { to: '+33612345678', body: 'x' })).body().accepted[0].id)
      }
      // A phone's reports move a message on: counted where it was created, by its status now.
      await db.from('messages').where('id', sent[0]).update({ status: 'delivered', device_id: '3' })
      await db.from('messages').where('id', sent[1]).update({ status: 'failed' })
      await (await app.container.make(MessageLedger)).storeInbound({
        deviceId: 3, ref: 'r1', phone: '+33612345678', body: 'hi', simSlot: 1,
        receivedAt: new Date('2026-05-02T12:00:00.000Z'), at: new Date('2026-05-02T12:00:01.000Z'),
      })

      const answer = await volumeOk(client, { from: '2026-05-01', to: '2026-05-04' })
      assert.deepInclude(answer, { from: '2026-05-01T00:00:00.000Z', to: '2026-05-04T00:00:00.000Z', interval: 'day', timezone: 'UTC' })
      assert.deepEqual(compact(answer), [
        ['2026-05-01T00:00:00.000Z', { delivered: 1, failed: 1, queued: 1 }, 0],
        ['2026-05-02T00:00:00.000Z', {}, 1],
        ['2026-05-03T00:00:00.000Z', { queued: 1 }, 0],
      ])
      assert.deepEqual(answer.totals, { out: out({ queued: 2, delivered: 1, failed: 1 }), in: { received: 1 } })

      // Default range: today and the six days before, up to now.
      const recent = await volumeOk(client, {})
      assert.equal(recent.from, '2026-04-27T00:00:00.000Z')
      assert.equal(recent.to, '2026-05-04T00:00:00.000Z')
      assert.lengthOf(recent.buckets, 7)
      assert.deepEqual(recent.totals, answer.totals)
    } finally {
      restore()
    }
  })

  test('counts follow every change of a message: status, phone, deletion', async ({ client, assert }) => {
    const [first, second] = await seed([
      { createdAt: '2026-05-01T10:00:00.000Z', status: 'queued' },
      { createdAt: '2026-05-01T11:00:00.000Z', status: 'queued' },
      { createdAt: '2026-05-01T23:59:59.999Z', status: 'queued' },
    ])
    const day = { from: '2026-05-01', to: '2026-05-02' }
    assert.deepEqual((await volumeOk(client, day)).totals.out, out({ queued: 3 }))

    await db.from('messages').where('id', first).update({ status: 'dispatched', device_id: '5' })
    assert.deepEqual((await volumeOk(client, day)).totals.out, out({ queued: 2, dispatched: 1 }))
    assert.deepEqual((await volumeOk(client, { ...day, deviceId: '5' })).totals.out, out({ dispatched: 1 }))

    // An update that changes no counted column leaves the counts alone.
    await db.from('messages').where('id', first).update({ attempts: 2, updated_at: '2026-05-01T12:00:00.000Z' })
    assert.deepEqual((await volumeOk(client, day)).totals.out, out({ queued: 2, dispatched: 1 }))

    const admin = await signInAs(client, 'operator')
    ;(await asBrowser(client.delete(`/api/v1/messages/${second}`), admin)).assertStatus(204)
    assert.deepEqual((await volumeOk(client, day)).totals.out, out({ queued: 1, dispatched: 1 }))

    // What the endpoint says equals a count over the messages themselves.
    const direct = await db.from('messages').select('status').count('* as total').groupBy('status')
    assert.deepEqual(
      Object.fromEntries(direct.map((row: any) => [row.status, Number(row.total)])),
      Object.fromEntries(Object.entries((await volumeOk(client, day)).totals.out).filter(([, count]) => count !== 0))
    )
  })

  test('the counters migration counts the messages a database already holds (an upgraded backup)', async ({ client, assert }) => {
    await seed([
      { createdAt: '2026-05-01T10:00:00.000Z', status: 'delivered', deviceId: '4' },
      { createdAt: '2026-05-01T10:10:00.000Z', status: 'failed' },
      { createdAt: '2026-05-01T11:00:00.000Z', direction: 'in' },
    ])
    const before = await volumeOk(client, { from: '2026-05-01', to: '2026-05-02', interval: 'hour' })
    // As on a database from before these counters (0011's): rolled back, then applied to its rows.
    await new StatisticsCounters(db.connection(), 'down', false).execDown()
    await new StatisticsCounters(db.connection(), 'up', false).execUp()
    const after = await volumeOk(client, { from: '2026-05-01', to: '2026-05-02', interval: 'hour' })
    assert.deepEqual(after, before)
    assert.deepEqual(compact(after).filter(([, counts, received]: any) => Object.keys(counts).length || received), [
      ['2026-05-01T10:00:00.000Z', { delivered: 1, failed: 1 }, 0],
      ['2026-05-01T11:00:00.000Z', {}, 1],
    ])
    // The triggers are back too.
    await db.from('messages').where('status', 'failed').update({ status: 'queued' })
    assert.deepEqual((await volumeOk(client, { from: '2026-05-01', to: '2026-05-02' })).totals.out, out({ delivered: 1, queued: 1 }))
  })

  test('the platform time zone (Settings > Sending) places the buckets unless tz is given', async ({ client, assert }) => {
    await seed([{ createdAt: '2026-05-01T22:30:00.000Z' }])
    await setTimezone('Europe/Paris')
    const paris = await volumeOk(client, { from: '2026-05-01', to: '2026-05-03' })
    assert.equal(paris.timezone, 'Europe/Paris')
    assert.deepEqual(compact(paris), [
      ['2026-04-30T22:00:00.000Z', {}, 0],
      ['2026-05-01T22:00:00.000Z', { sent: 1 }, 0],
    ])
    const utc = await volumeOk(client, { from: '2026-05-01', to: '2026-05-03', tz: 'UTC' })
    assert.equal(utc.timezone, 'UTC')
    assert.deepEqual(compact(utc), [
      ['2026-05-01T00:00:00.000Z', { sent: 1 }, 0],
      ['2026-05-02T00:00:00.000Z', {}, 0],
    ])
  })

  test('a zone half an hour off UTC: its hours start at half past in UTC', async ({ client, assert }) => {
    await seed([{ createdAt: '2026-05-01T04:29:59.000Z' }, { createdAt: '2026-05-01T04:30:00.000Z' }])
    const answer = await volumeOk(client, { from: '2026-05-01T09:00', to: '2026-05-01T11:00', interval: 'hour', tz: 'Asia/Kolkata' })
    assert.deepEqual(compact(answer), [
      ['2026-05-01T03:30:00.000Z', { sent: 1 }, 0],
      ['2026-05-01T04:30:00.000Z', { sent: 1 }, 0],
    ])
  })

  test('Europe/Paris spring forward: the 23-hour day is one day bucket and 23 hour buckets', async ({ client, assert }) => {
    await seed([
      { createdAt: '2026-03-28T22:59:59.999Z' }, // 23:59:59 on the 28th (CET)
      { createdAt: '2026-03-28T23:30:00.000Z' }, // 00:30 on the 29th (CET)
      { createdAt: '2026-03-29T01:30:00.000Z' }, // 03:30 (CEST), just after the skipped hour
      { createdAt: '2026-03-29T21:59:59.999Z', direction: 'in' }, // 23:59:59 on the 29th (CEST)
      { createdAt: '2026-03-29T22:00:00.000Z' }, // midnight of the 30th
    ])
    const byDay = await volumeOk(client, { from: '2026-03-28', to: '2026-03-31', tz: 'Europe/Paris' })
    assert.deepEqual(compact(byDay), [
      ['2026-03-27T23:00:00.000Z', { sent: 1 }, 0],
      ['2026-03-28T23:00:00.000Z', { sent: 2 }, 1],
      ['2026-03-29T22:00:00.000Z', { sent: 1 }, 0],
    ])
    assert.equal(byDay.to, '2026-03-30T22:00:00.000Z')

    const byHour = await volumeOk(client, { from: '2026-03-29', to: '2026-03-30', tz: 'Europe/Paris', interval: 'hour' })
    assert.lengthOf(byHour.buckets, 23)
    assert.deepEqual(
      byHour.buckets.slice(0, 3).map((bucket: any) => bucket.start),
      ['2026-03-28T23:00:00.000Z', '2026-03-29T00:00:00.000Z', '2026-03-29T01:00:00.000Z']
    )
    assert.deepEqual(byHour.buckets[0].out, out({ sent: 1 }))
    assert.deepEqual(byHour.buckets[2].out, out({ sent: 1 }))
    assert.equal(byHour.buckets[22].start, '2026-03-29T21:00:00.000Z')
    assert.equal(byHour.buckets[22].in.received, 1)
    assert.deepEqual(byHour.totals, { out: out({ sent: 2 }), in: { received: 1 } })
  })

  test('Europe/Paris fall back: the 25-hour day is one day bucket; the repeated hour is two buckets', async ({ client, assert }) => {
    await seed([
      { createdAt: '2026-10-24T22:00:00.000Z' }, // midnight of the 25th (CEST)
      { createdAt: '2026-10-25T00:30:00.000Z' }, // 02:30 CEST
      { createdAt: '2026-10-25T01:30:00.000Z', status: 'failed' }, // 02:30 CET, the same wall time again
      { createdAt: '2026-10-25T22:59:59.999Z' }, // 23:59:59 on the 25th (CET)
    ])
    const byDay = await volumeOk(client, { from: '2026-10-25', to: '2026-10-26', tz: 'Europe/Paris' })
    assert.deepEqual(compact(byDay), [['2026-10-24T22:00:00.000Z', { sent: 3, failed: 1 }, 0]])
    assert.equal(byDay.to, '2026-10-25T23:00:00.000Z')

    const byHour = await volumeOk(client, { from: '2026-10-25', to: '2026-10-26', tz: 'Europe/Paris', interval: 'hour' })
    assert.lengthOf(byHour.buckets, 25)
    assert.deepEqual(byHour.buckets.slice(2, 4).map((bucket: any) => [bucket.start, bucket.out.sent, bucket.out.failed]), [
      ['2026-10-25T00:00:00.000Z', 1, 0],
      ['2026-10-25T01:00:00.000Z', 0, 1],
    ])
    assert.equal(byHour.buckets[24].out.sent, 1)

    // A week across the change is 7 days by hour (169 hours), within the hourly cap.
    const week = await volumeOk(client, { from: '2026-10-19', to: '2026-10-26', tz: 'Europe/Paris', interval: 'hour' })
    assert.lengthOf(week.buckets, 169)
  })

  test('filters by direction, category and phone', async ({ client, assert }) => {
    await seed([
      { createdAt: '2026-05-01T10:00:00.000Z', category: 'campaign', deviceId: '1' },
      { createdAt: '2026-05-01T10:00:00.000Z', category: 'info', deviceId: '2', status: 'delivered' },
      { createdAt: '2026-05-01T10:00:00.000Z', direction: 'in', category: 'campaign', deviceId: '1' },
      { createdAt: '2026-05-01T10:00:00.000Z', status: 'queued' },
    ])
    const totals = async (query: Record<string, string>) => (await volumeOk(client, { from: '2026-05-01', to: '2026-05-02', ...query })).totals
    assert.deepEqual(await totals({}), { out: out({ sent: 1, delivered: 1, queued: 1 }), in: { received: 1 } })
    assert.deepEqual(await totals({ direction: 'out' }), { out: out({ sent: 1, delivered: 1, queued: 1 }), in: { received: 0 } })
    assert.deepEqual(await totals({ direction: 'in' }), { out: out(), in: { received: 1 } })
    assert.deepEqual(await totals({ category: 'campaign' }), { out: out({ sent: 1 }), in: { received: 1 } })
    assert.deepEqual(await totals({ deviceId: '2' }), { out: out({ delivered: 1 }), in: { received: 0 } })
    assert.deepEqual(await totals({ deviceId: '1', direction: 'in', category: 'campaign' }), { out: out(), in: { received: 1 } })
    assert.deepEqual(await totals({ deviceId: '99' }), { out: out(), in: { received: 0 } })
  })

  test('an empty range has no bucket; a range without messages has every bucket at zero', async ({ client, assert }) => {
    const empty = await volumeOk(client, { from: '2026-05-01T10:00:00Z', to: '2026-05-01T10:00:00Z' })
    assert.deepEqual(empty.buckets, [])
    assert.deepEqual(empty.totals, { out: out(), in: { received: 0 } })
    assert.equal(empty.from, '2026-05-01T10:00:00.000Z')

    const quiet = await volumeOk(client, { from: '2026-05-01', to: '2026-05-01T03:00', interval: 'hour' })
    assert.deepEqual(compact(quiet), [
      ['2026-05-01T00:00:00.000Z', {}, 0],
      ['2026-05-01T01:00:00.000Z', {}, 0],
      ['2026-05-01T02:00:00.000Z', {}, 0],
    ])
  })

  test('a range is whole local buckets around what was asked', async ({ client, assert }) => {
    await seed([{ createdAt: '2026-05-01T01:00:00.000Z' }, { createdAt: '2026-05-02T23:00:00.000Z' }])
    const answer = await volumeOk(client, { from: '2026-05-01T12:00:00Z', to: '2026-05-02T12:00:00Z' })
    assert.equal(answer.from, '2026-05-01T00:00:00.000Z')
    assert.equal(answer.to, '2026-05-03T00:00:00.000Z')
    assert.deepEqual(answer.totals.out, out({ sent: 2 }))
  })

  test('refuses bad ranges and values with VALIDATION_ERROR naming the field', async ({ client, assert }) => {
    const refused = async (query: Record<string, string>, field: string) => {
      const response = await volume(client, query)
      response.assertStatus(400)
      assert.equal(response.body().error.code, 'VALIDATION_ERROR')
      assert.include(response.body().error.details.map((detail: any) => detail.field), field)
    }
    await refused({ from: '2026-05-02', to: '2026-05-01' }, 'to')
    await refused({ from: '2025-01-01', to: '2026-02-06' }, 'to') // 401 days
    await refused({ from: '2026-05-01', to: '2026-05-08T01:00', interval: 'hour' }, 'to')
    await refused({ from: '2026-02-30' }, 'from')
    await refused({ from: 'yesterday' }, 'from')
    await refused({ tz: 'Mars/Olympus' }, 'tz')
    await refused({ interval: 'week' }, 'interval')
    await refused({ direction: 'sideways' }, 'direction')
    await refused({ category: 'spam' }, 'category')
    await refused({ deviceId: 'abc' }, 'deviceId')

    // The limits themselves are allowed.
    assert.lengthOf((await volumeOk(client, { from: '2025-01-01', to: '2026-02-05' })).buckets, 400)
    assert.lengthOf((await volumeOk(client, { from: '2026-05-01', to: '2026-05-08', interval: 'hour' })).buckets, 168)
  })

  test('read by a read key and every dashboard role; refused without credentials', async ({ client }) => {
    ;(await volume(client, {})).assertStatus(200)
    ;(await volume(client, {}, testKeys.admin)).assertStatus(200)
    const readonly = await signInAs(client, 'readonly')
    ;(await asBrowser(client.get('/api/v1/statistics/messages'), readonly)).assertStatus(200)
    const anonymous = await client.get('/api/v1/statistics/messages')
    anonymous.assertStatus(401)
    anonymous.assertBodyContains({ error: { code: 'MISSING_API_KEY' } })
  })
})
