import { test } from '@japa/runner'
import { dayIn, keptRecentOrders, parseRecentOrders } from '#modules/devices/services/sim_usage'

test.group('SIM order times', () => {
  const now = Date.parse('2026-06-10T12:00:00.000Z')

  test('without a per-minute limit only the last order is kept, however old', ({ assert }) => {
    assert.deepEqual(keptRecentOrders([now - 3_000_000, now - 2_000_000], now, null), [now - 2_000_000])
    assert.deepEqual(keptRecentOrders([], now, null), [])
  })

  test('under a per-minute limit: the last minute, at most that many, newest kept', ({ assert }) => {
    const times = [now - 90_000, now - 50_000, now - 40_000, now - 30_000, now - 1_000]
    assert.deepEqual(keptRecentOrders(times, now, 3), [now - 40_000, now - 30_000, now - 1_000])
    assert.deepEqual(keptRecentOrders(times, now, 10), [now - 50_000, now - 40_000, now - 30_000, now - 1_000])
    // Nothing in the last minute: the last order still counts for the minimum interval.
    assert.deepEqual(keptRecentOrders([now - 200_000, now - 120_000], now, 5), [now - 120_000])
  })

  test('a stored value that is not a list of times reads as no orders', ({ assert }) => {
    assert.deepEqual(parseRecentOrders('[1, 2]'), [1, 2])
    assert.deepEqual(parseRecentOrders(null), [])
    assert.deepEqual(parseRecentOrders('not json'), [])
    assert.deepEqual(parseRecentOrders('{"a":1}'), [])
    assert.deepEqual(parseRecentOrders('[1, "x", null]'), [1])
  })

  test('the day of a date in a time zone, formatter reused across zones', ({ assert }) => {
    const late = new Date('2026-06-10T23:30:00.000Z')
    assert.equal(dayIn('UTC', late), '2026-06-10')
    assert.equal(dayIn('Europe/Paris', late), '2026-06-11')
    assert.equal(dayIn('America/New_York', late), '2026-06-10')
    assert.equal(dayIn('Europe/Paris', new Date('2026-06-10T21:00:00.000Z')), '2026-06-10')
  })
})
