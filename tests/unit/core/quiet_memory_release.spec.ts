import { test } from '@japa/runner'
import { getHeapStatistics } from 'node:v8'
import { CHECK_EVERY_MS, GROWTH_BYTES, QuietMemoryRelease, thisProcess } from '#core/system/quiet_memory_release'

const MB = 1024 * 1024
const BUSY = CHECK_EVERY_MS * 1000 * 0.5
const QUIET = CHECK_EVERY_MS * 1000 * 0.001

/** A process whose CPU time and heap the test moves; a collection leaves `live` bytes in use. */
function fakeProcess(heapMb: number, liveMb: number) {
  const state = { cpu: 0, heap: heapMb * MB, live: liveMb * MB, collections: 0 }
  return {
    state,
    readings: {
      cpuMicros: () => state.cpu,
      heapBytes: () => state.heap,
      collect: () => {
        state.collections++
        state.heap = state.live
      },
    },
  }
}

test.group('QuietMemoryRelease', () => {
  test('collects once the process is quiet after its heap grew, then once more, then leaves it alone', ({ assert }) => {
    const { state, readings } = fakeProcess(40, 38)
    const release = new QuietMemoryRelease(readings)
    // Start-up's own garbage goes at the first quiet check.
    state.cpu += QUIET
    assert.isTrue(release.check())
    state.cpu += QUIET
    assert.isTrue(release.check(), 'the follow-up collection')
    state.cpu += QUIET
    assert.isFalse(release.check())
    assert.equal(state.collections, 2)

    // A burst: the heap grows far past the last release while the process is busy.
    for (let second = 0; second < 6; second++) {
      state.cpu += BUSY
      state.heap += 30 * MB
      assert.isFalse(release.check(), 'a busy process is never interrupted')
    }
    state.cpu += QUIET
    assert.isTrue(release.check())
    assert.equal(state.heap, 38 * MB)
    state.cpu += QUIET
    assert.isTrue(release.check())
    for (let check = 0; check < 10; check++) {
      state.cpu += QUIET
      assert.isFalse(release.check())
    }
    assert.equal(state.collections, 4)
  })

  test('a quiet process whose heap grew less than the threshold is not collected', ({ assert }) => {
    const { state, readings } = fakeProcess(40, 40)
    const release = new QuietMemoryRelease(readings)
    state.cpu += QUIET
    release.check()
    state.cpu += QUIET
    release.check()
    const before = state.collections
    state.heap += GROWTH_BYTES - 1
    state.cpu += QUIET
    assert.isFalse(release.check())
    state.heap += 1
    state.cpu += QUIET
    assert.isTrue(release.check())
    assert.equal(state.collections, before + 1)
  })

  test('the follow-up waits for a quiet check too', ({ assert }) => {
    const { state, readings } = fakeProcess(100, 40)
    const release = new QuietMemoryRelease(readings)
    state.cpu += QUIET
    assert.isTrue(release.check())
    state.cpu += BUSY
    assert.isFalse(release.check())
    state.cpu += QUIET
    assert.isTrue(release.check())
  })

  test("this process's readings: CPU time moves, the heap held is at least the heap in use, the collector frees what nothing holds", ({ assert }) => {
    const own = thisProcess()
    const cpu = own.cpuMicros()
    let held: Array<{ index: number; text: string }> | null = Array.from({ length: 200_000 }, (_, index) => ({ index, text: `item ${index}` }))
    const withHeld = getHeapStatistics().used_heap_size
    assert.isAtLeast(own.heapBytes(), withHeld)
    assert.equal(held.length, 200_000)
    held = null
    own.collect()
    assert.isBelow(getHeapStatistics().used_heap_size, withHeld - 5 * MB)
    assert.isAbove(own.cpuMicros(), cpu)
  })
})
