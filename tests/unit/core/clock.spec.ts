import { test } from '@japa/runner'
import { stat } from 'node:fs'
import { GatewayClock, ManualClock, SystemClock } from '#core/time/clock'

test.group('ManualClock', () => {
  test('fires timers in time order as time is advanced, and only those due', async ({ assert }) => {
    const clock = new ManualClock('2026-03-01T00:00:00.000Z')
    const fired: string[] = []
    clock.setTimer(30_000, () => fired.push(`30s at ${clock.now().toISOString()}`))
    clock.setTimer(10_000, () => fired.push(`10s at ${clock.now().toISOString()}`))
    clock.setTimer(120_000, () => fired.push('2min'))

    await clock.advance(60_000)

    assert.deepEqual(fired, ['10s at 2026-03-01T00:00:10.000Z', '30s at 2026-03-01T00:00:30.000Z'])
    assert.equal(clock.now().toISOString(), '2026-03-01T00:01:00.000Z')
    assert.equal(clock.pendingTimers, 1)
  })

  test('a cancelled timer never fires', async ({ assert }) => {
    const clock = new ManualClock()
    let fired = false
    clock.setTimer(1000, () => (fired = true)).cancel()
    await clock.advance(5000)
    assert.isFalse(fired)
  })

  test('a timer set by a firing timer fires in the same advance when due', async ({ assert }) => {
    const clock = new ManualClock('2026-03-01T00:00:00.000Z')
    const fired: number[] = []
    clock.setTimer(1000, () => {
      fired.push(clock.nowMs())
      clock.setTimer(1000, () => fired.push(clock.nowMs()))
    })
    await clock.advance(2500)
    const start = Date.parse('2026-03-01T00:00:00.000Z')
    assert.deepEqual(fired, [start + 1000, start + 2000])
  })

  test('waits for tracked work started by a timer before time moves on', async ({ assert }) => {
    const clock = new ManualClock('2026-03-01T00:00:00.000Z')
    const order: string[] = []
    clock.setTimer(1000, () => {
      const work = new Promise((resolve) => setTimeout(resolve, 30)).then(() => {
        order.push(`work done at ${clock.now().toISOString()}`)
        clock.setTimer(1000, () => order.push(`next at ${clock.now().toISOString()}`))
      })
      clock.track(work)
    })
    await clock.advance(5000)
    assert.deepEqual(order, ['work done at 2026-03-01T00:00:01.000Z', 'next at 2026-03-01T00:00:02.000Z'])
  })

  test('refuses to go backwards', async ({ assert }) => {
    const clock = new ManualClock('2026-03-01T00:00:00.000Z')
    await assert.rejects(() => clock.advanceTo(new Date('2026-02-01T00:00:00.000Z')), /backwards/)
  })
})

test.group('SystemClock', () => {
  test('a timer due now runs on the next turn of the event loop, and a cancelled one never', async ({ assert }) => {
    const clock = new SystemClock()
    const fired: string[] = []
    await new Promise<void>((resolve) => {
      // Inside an I/O callback the loop's order is fixed: check (setImmediate) before timers.
      stat('.', () => {
        const cancelled = clock.setTimer(0, () => fired.push('cancelled'))
        setTimeout(() => {
          fired.push('setTimeout 0')
          resolve()
        }, 0)
        clock.setTimer(0, () => fired.push('due now'))
        clock.setTimer(-5, () => fired.push('overdue'))
        cancelled.cancel()
      })
    })
    assert.deepEqual(fired, ['due now', 'overdue', 'setTimeout 0'])
  })

  test('a timer with a delay fires after it, not before', async ({ assert }) => {
    const clock = new SystemClock()
    const started = Date.now()
    const firedAfter = await new Promise<number>((resolve) => clock.setTimer(20, () => resolve(Date.now() - started)))
    assert.isAtLeast(firedAfter, 19)
  })
})

test.group('GatewayClock', () => {
  test('reads and arms time on the source it is told to use, then on the system time again', async ({ assert }) => {
    const clock = new GatewayClock()
    const manual = new ManualClock('2026-03-01T00:00:00.000Z')
    clock.use(manual)
    assert.equal(clock.now().toISOString(), '2026-03-01T00:00:00.000Z')
    let fired = false
    clock.setTimer(1000, () => (fired = true))
    await manual.advance(1000)
    assert.isTrue(fired, 'a timer armed through the gateway clock runs on the manual time')

    clock.useSystemTime()
    assert.isBelow(Math.abs(clock.nowMs() - Date.now()), 1000)
  })
})
