import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import type { ApiClient } from '@japa/api-client'
import { useManualClock } from '#tests/helpers/clock'
import { asBrowser, signInAs, testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearStatistics, setTimezone, statistics, statisticsOk } from '#tests/functional/statistics/statistics_helpers'
import LinkAndOptCounters from '#database/migrations/0020_messages_link_clicks_and_opt_outs_counters'

async function link(code: string, url = `https://example.org/${code}`) {
  const [id] = await db.table('links').insert({ code, url, clicks: 0, created_at: '2026-01-01T00:00:00.000Z' })
  return Number(id)
}

async function click(client: ApiClient, code: string, times = 1) {
  for (let n = 0; n < times; n++) (await client.get(`/l/${code}`).redirects(0)).assertStatus(302)
}

async function contact(client: ApiClient, phone: string, blacklisted: boolean) {
  const response = await client.post('/api/v1/contacts').header('x-api-key', testKeys.admin).json({ phone, blacklisted })
  response.assertStatus(201)
  return response.body().id as string
}

async function setOptedOut(client: ApiClient, id: string, blacklisted: boolean) {
  ;(await client.patch(`/api/v1/contacts/${id}`).header('x-api-key', testKeys.admin).json({ blacklisted })).assertStatus(200)
}

test.group('Statistics: link clicks', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearStatistics()
    await setTimezone('UTC')
  })
  group.teardown(() => setTimezone('UTC'))

  test('clicks per local day and per link, the most clicked first', async ({ client, assert }) => {
    const { clock, restore } = useManualClock('2026-05-01T21:30:00.000Z') // 23:30 in Paris
    try {
      const offer = await link('Offer01')
      const news = await link('News001')
      await link('Never01')
      await click(client, 'Offer01', 2)
      await click(client, 'News001')
      await clock.advance(60 * 60_000) // 00:30 on 2 May in Paris, still 1 May in UTC
      await click(client, 'News001', 3)
      await clock.advance(86_400_000)
      await click(client, 'Offer01')

      await setTimezone('Europe/Paris')
      const answer = await statisticsOk(client, 'links', { from: '2026-05-01', to: '2026-05-04' })
      assert.deepInclude(answer, { from: '2026-04-30T22:00:00.000Z', to: '2026-05-03T22:00:00.000Z', interval: 'day', timezone: 'Europe/Paris' })
      assert.deepEqual(answer.buckets, [
        { start: '2026-04-30T22:00:00.000Z', clicks: 3 },
        { start: '2026-05-01T22:00:00.000Z', clicks: 3 },
        { start: '2026-05-02T22:00:00.000Z', clicks: 1 },
      ])
      assert.deepEqual(answer.totals, { clicks: 7 })
      assert.deepEqual(
        answer.links.map((entry: any) => [entry.id, entry.code, entry.url, entry.clicks]),
        [
          [String(news), 'News001', 'https://example.org/News001', 4],
          [String(offer), 'Offer01', 'https://example.org/Offer01', 3],
        ]
      )
      assert.match(answer.links[0].shortUrl, /\/l\/News001$/)

      // One link, by day; and the same range in UTC.
      const one = await statisticsOk(client, 'links', { from: '2026-05-01', to: '2026-05-04', linkId: String(news) })
      assert.deepEqual(one.buckets.map((bucket: any) => bucket.clicks), [1, 3, 0])
      assert.deepEqual(one.links.map((entry: any) => entry.id), [String(news)])
      const utc = await statisticsOk(client, 'links', { from: '2026-05-01', to: '2026-05-04', tz: 'UTC' })
      assert.deepEqual(utc.buckets.map((bucket: any) => bucket.clicks), [6, 1, 0])

      // By hour, and the list cut to `limit`.
      const byHour = await statisticsOk(client, 'links', { from: '2026-05-01T23:00', to: '2026-05-02T01:00', interval: 'hour', limit: '1' })
      assert.deepEqual(byHour.buckets.map((bucket: any) => [bucket.start, bucket.clicks]), [
        ['2026-05-01T21:00:00.000Z', 3],
        ['2026-05-01T22:00:00.000Z', 3],
      ])
      assert.deepEqual(byHour.links.map((entry: any) => [entry.code, entry.clicks]), [['News001', 4]])

      // The total on the link itself still counts every click.
      assert.equal((await db.from('links').where('id', offer).first()).clicks, 3)
    } finally {
      restore()
    }
  })

  test('refuses bad input with VALIDATION_ERROR', async ({ client, assert }) => {
    for (const [query, field] of [
      [{ linkId: 'abc' }, 'linkId'],
      [{ limit: '0' }, 'limit'],
      [{ limit: '101' }, 'limit'],
      [{ limit: '2.5' }, 'limit'],
      [{ limit: 'ten' }, 'limit'],
      [{ interval: 'week' }, 'interval'],
      [{ to: 'tomorrow' }, 'to'],
    ] as const) {
      const response = await statistics(client, 'links', query)
      response.assertStatus(400)
      assert.equal(response.body().error.code, 'VALIDATION_ERROR')
      assert.include(response.body().error.details.map((detail: any) => detail.field), field)
    }
  })
})

test.group('Statistics: opt-outs', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await clearStatistics()
    await setTimezone('UTC')
  })
  group.teardown(() => setTimezone('UTC'))

  test('numbers opted out and back in per local day, whoever changes the flag', async ({ client, assert }) => {
    const { clock, restore } = useManualClock('2026-03-28T22:30:00.000Z') // 23:30 on 28 March in Paris
    try {
      const first = await contact(client, '+33612345601', true) // created opted out
      await contact(client, '+33612345602', false) // not an opt-out
      const third = await contact(client, '+33612345603', false)
      await clock.advance(60 * 60_000) // 00:30 on the 29th (CET)
      await setOptedOut(client, third, true)
      await setOptedOut(client, third, true) // no change, not counted
      await clock.advance(22 * 60 * 60_000) // 23:30 on the 29th (CEST): the day is 23 hours long
      await setOptedOut(client, first, false)
      await clock.advance(60 * 60_000) // 00:30 on the 30th
      // A change made outside the contacts API (an import, an opt-out keyword) counts too.
      await db.from('contacts').where('phone', '+33612345602').update({ blacklisted: true, updated_at: clock.now().toISOString() })

      await setTimezone('Europe/Paris')
      const answer = await statisticsOk(client, 'opt-outs', { from: '2026-03-28', to: '2026-03-31' })
      assert.deepInclude(answer, { from: '2026-03-27T23:00:00.000Z', to: '2026-03-30T22:00:00.000Z', timezone: 'Europe/Paris' })
      assert.deepEqual(answer.buckets, [
        { start: '2026-03-27T23:00:00.000Z', optedOut: 1, optedIn: 0 },
        { start: '2026-03-28T23:00:00.000Z', optedOut: 1, optedIn: 1 },
        { start: '2026-03-29T22:00:00.000Z', optedOut: 1, optedIn: 0 },
      ])
      assert.deepEqual(answer.totals, { optedOut: 3, optedIn: 1 })

      const byHour = await statisticsOk(client, 'opt-outs', { from: '2026-03-29', to: '2026-03-30', interval: 'hour' })
      assert.lengthOf(byHour.buckets, 23)
      assert.deepEqual(byHour.buckets[0], { start: '2026-03-28T23:00:00.000Z', optedOut: 1, optedIn: 0 })
      assert.deepEqual(byHour.buckets[22], { start: '2026-03-29T21:00:00.000Z', optedOut: 0, optedIn: 1 })

      // A deleted contact leaves the history as it was.
      const admin = await signInAs(client, 'operator')
      ;(await asBrowser(client.delete(`/api/v1/contacts/${third}`), admin)).assertStatus(204)
      assert.deepEqual((await statisticsOk(client, 'opt-outs', { from: '2026-03-28', to: '2026-03-31' })).totals, { optedOut: 3, optedIn: 1 })
    } finally {
      restore()
    }
  })

  test('many contacts opted out at once count one opt-out each, at the time of the change; one opted out already is not counted again', async ({ client, assert }) => {
    const { clock, restore } = useManualClock('2026-04-10T09:00:00.000Z')
    try {
      const ids = [await contact(client, '+33612345621', false), await contact(client, '+33612345622', false), await contact(client, '+33612345623', true)]
      await clock.advance(24 * 60 * 60_000)
      const answer = await client.post('/api/v1/contacts/opt-out').header('x-api-key', testKeys.admin).json({ contactIds: ids })
      assert.deepEqual(answer.body(), { matched: 3, changed: 2, skipped: { already_opted_out: 1 } })
      const counted = await statisticsOk(client, 'opt-outs', { from: '2026-04-10', to: '2026-04-12' })
      assert.deepEqual(counted.buckets, [
        { start: '2026-04-10T00:00:00.000Z', optedOut: 1, optedIn: 0 },
        { start: '2026-04-11T00:00:00.000Z', optedOut: 2, optedIn: 0 },
      ])
    } finally {
      restore()
    }
  })

  test('the migration counts each contact opted out today once, at its last change', async ({ client, assert }) => {
    await db.table('contacts').multiInsert([
      { phone: '+33612345611', tags: '[]', blacklisted: true, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-05-01T10:00:00.000Z' },
      { phone: '+33612345612', tags: '[]', blacklisted: false, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-05-01T10:00:00.000Z' },
    ])
    await new LinkAndOptCounters(db.connection(), 'down', false).execDown()
    await new LinkAndOptCounters(db.connection(), 'up', false).execUp()
    const answer = await statisticsOk(client, 'opt-outs', { from: '2026-05-01', to: '2026-05-02' })
    assert.deepEqual(answer.totals, { optedOut: 1, optedIn: 0 })
    // The triggers are back.
    await db.from('contacts').where('phone', '+33612345612').update({ blacklisted: true, updated_at: '2026-05-01T11:00:00.000Z' })
    assert.deepEqual((await statisticsOk(client, 'opt-outs', { from: '2026-05-01', to: '2026-05-02' })).totals, { optedOut: 2, optedIn: 0 })
  })

  test('refuses bad input with VALIDATION_ERROR', async ({ client, assert }) => {
    for (const [query, field] of [
      [{ tz: 'Paris' }, 'tz'],
      [{ from: '2026-05-01T25:00' }, 'from'],
      [{ from: '2026-05-02', to: '2026-05-01' }, 'to'],
      [{ from: '2025-01-01', to: '2026-02-06' }, 'to'],
    ] as const) {
      const response = await statistics(client, 'opt-outs', query)
      response.assertStatus(400)
      assert.equal(response.body().error.code, 'VALIDATION_ERROR')
      assert.include(response.body().error.details.map((detail: any) => detail.field), field)
    }
  })
})

test.group('Statistics: who may read', (group) => {
  group.setup(() => useTestKeys())

  test('every statistics endpoint answers a read key and the readonly role, and refuses no credentials', async ({ client }) => {
    const readonly = await signInAs(client, 'readonly')
    for (const [endpoint, query] of [
      ['messages/breakdown', { groupBy: 'sim' }],
      ['delivery-rate', {}],
      ['failures', {}],
      ['latency', {}],
      ['links', {}],
      ['opt-outs', {}],
    ] as const) {
      ;(await statistics(client, endpoint, query)).assertStatus(200)
      ;(await asBrowser(client.get(`/api/v1/statistics/${endpoint}`).qs(query), readonly)).assertStatus(200)
      const anonymous = await client.get(`/api/v1/statistics/${endpoint}`).qs(query)
      anonymous.assertStatus(401)
      anonymous.assertBodyContains({ error: { code: 'MISSING_API_KEY' } })
    }
  })
})
