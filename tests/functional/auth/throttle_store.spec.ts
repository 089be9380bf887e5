import { test } from '@japa/runner'
import { errors } from '@adonisjs/limiter'
import { ManualClock } from '#core/time/clock'
import { ClockedMemoryStore } from '#core/http/clocked_memory_store'

/** The store behind the sign-in and pairing throttles (config/limiter.ts), on a ManualClock. */
function storeOn(clock: ManualClock, options: { requests: number; duration: string; blockDuration?: string }, maxKeys = 1000) {
  return new ClockedMemoryStore(options, { now: () => clock.nowMs(), maxKeys })
}

test.group('Throttle store (limiter memory store on the gateway clock)', () => {
  test('counts in a window opened by the first request and forgets it when the clock says so', async ({ assert }) => {
    const clock = new ManualClock('2026-07-01T10:00:00.000Z')
    const store = storeOn(clock, { requests: 5, duration: '10 mins' })
    for (let failure = 1; failure <= 5; failure++) assert.equal((await store.increment('pairing:203.0.113.5')).consumed, failure)
    const full = (await store.get('pairing:203.0.113.5'))!
    assert.deepEqual(full.toJSON(), { limit: 5, remaining: 0, consumed: 5, availableIn: 600 })
    await clock.advance(4 * 60_000)
    assert.equal((await store.get('pairing:203.0.113.5'))!.availableIn, 360, 'a later request does not move the window')
    await clock.advance(6 * 60_000)
    assert.isNull(await store.get('pairing:203.0.113.5'))
    assert.equal(store.size, 0)
  })

  test('consume refuses over the limit (E_TOO_MANY_REQUESTS), blocking once for blockDuration', async ({ assert }) => {
    const clock = new ManualClock()
    const store = storeOn(clock, { requests: 2, duration: '1 min', blockDuration: '15 mins' })
    await store.consume('k')
    await store.consume('k')
    const refused = await store.consume('k').catch((error) => error)
    assert.instanceOf(refused, errors.E_TOO_MANY_REQUESTS)
    assert.equal(refused.response.availableIn, 15 * 60)
    await clock.advance(60_000)
    assert.equal((await store.get('k'))!.availableIn, 14 * 60, 'the block outlasts the window')
    await clock.advance(14 * 60_000)
    assert.equal((await store.consume('k')).consumed, 1)
  })

  test('block and set take their own duration; delete and clear forget', async ({ assert }) => {
    const clock = new ManualClock()
    const store = storeOn(clock, { requests: 1, duration: '15 mins' })
    assert.deepEqual((await store.block('wait', 4)).toJSON(), { limit: 1, remaining: 0, consumed: 2, availableIn: 4 })
    await clock.advance(3999)
    assert.equal((await store.get('wait'))!.availableIn, 1)
    await clock.advance(1)
    assert.isNull(await store.get('wait'))
    assert.equal((await store.set('count', 7)).availableIn, 15 * 60)
    assert.isTrue(await store.delete('count'))
    await store.block('a', 60)
    await store.clear()
    assert.equal(store.size, 0)
  })

  test('many distinct keys: the store never holds more than its ceiling, the newest kept', async ({ assert }) => {
    const clock = new ManualClock()
    const store = storeOn(clock, { requests: 5, duration: '10 mins' }, 1000)
    let largest = 0
    for (let index = 0; index < 5000; index++) {
      await store.increment(`pairing:198.51.${index >> 8}.${index & 255}`)
      largest = Math.max(largest, store.size)
    }
    assert.equal(largest, 1000)
    assert.isNull(await store.get('pairing:198.51.0.0'), 'the oldest went first')
    assert.equal((await store.get(`pairing:198.51.${4999 >> 8}.${4999 & 255}`))!.consumed, 1)

    // Expired keys are swept before any live one is dropped.
    await store.block('wait:slow-guesser', 60 * 60)
    await clock.advance(11 * 60_000)
    await store.increment('pairing:192.0.2.1')
    assert.equal(store.size, 2)
    assert.equal((await store.get('wait:slow-guesser'))!.availableIn, 49 * 60)
  })
})
