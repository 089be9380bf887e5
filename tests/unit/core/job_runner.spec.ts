import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import logger from '@adonisjs/core/services/logger'
import { ManualClock } from '#core/time/clock'
import { JobRunner, RETRY_AFTER_FAILURE_MS } from '#core/jobs/job_runner'

const START = '2026-04-01T08:00:00.000Z'

test.group('JobRunner', (group) => {
  group.each.setup(async () => {
    await db.from('scheduled_jobs').delete()
  })

  test('a job never run before is due at start, then when its pass says', async ({ assert }) => {
    const clock = new ManualClock(START)
    const runner = new JobRunner(clock, db, logger)
    const passes: string[] = []
    runner.register({
      name: 'every-minute',
      run: async (now) => {
        passes.push(now.toISOString())
        return new Date(now.getTime() + 60_000)
      },
    })
    await runner.start()
    await clock.advance(0)
    await runner.whenIdle()
    await clock.advance(150_000)
    await runner.whenIdle()
    await runner.stop()

    assert.deepEqual(passes, ['2026-04-01T08:00:00.000Z', '2026-04-01T08:01:00.000Z', '2026-04-01T08:02:00.000Z'])
    const row = await db.from('scheduled_jobs').where('name', 'every-minute').first()
    assert.equal(row.due_at, '2026-04-01T08:03:00.000Z')
    assert.equal(row.last_started_at, '2026-04-01T08:02:00.000Z')
  })

  test('a restart resumes from the persisted due time instead of running at once', async ({ assert }) => {
    const clock = new ManualClock(START)
    const passes: string[] = []
    const definition = {
      name: 'hourly',
      run: async (now: Date) => {
        passes.push(now.toISOString())
        return new Date(now.getTime() + 3_600_000)
      },
    }
    const first = new JobRunner(clock, db, logger)
    first.register(definition)
    await first.start()
    await first.whenIdle()
    await first.stop()

    await clock.advance(10 * 60_000)
    const second = new JobRunner(clock, db, logger)
    second.register(definition)
    await second.start()
    await second.whenIdle()
    assert.deepEqual(passes, ['2026-04-01T08:00:00.000Z'])
    assert.equal(second.dueAt('hourly')?.toISOString(), '2026-04-01T09:00:00.000Z')

    await clock.advance(50 * 60_000)
    await second.whenIdle()
    await second.stop()
    assert.deepEqual(passes, ['2026-04-01T08:00:00.000Z', '2026-04-01T09:00:00.000Z'])
  })

  test('wake runs a sleeping job now; a wake during a pass runs it once more after', async ({ assert }) => {
    const clock = new ManualClock(START)
    const runner = new JobRunner(clock, db, logger)
    let passes = 0
    let release: () => void = () => {}
    runner.register({
      name: 'dispatcher',
      run: async () => {
        passes++
        if (passes === 2) await new Promise<void>((resolve) => (release = resolve))
        return null
      },
    })
    await runner.start()
    await runner.whenIdle()
    assert.equal(passes, 1)
    assert.isNull(runner.dueAt('dispatcher'))

    runner.wake('dispatcher')
    // The clock waits for the pass it started, which waits for release(): don't await yet.
    const advancing = clock.advance(0)
    while (passes < 2) await new Promise((resolve) => setImmediate(resolve))
    // Two wakes while the pass runs: one more pass, not two, and never two at once.
    runner.wake('dispatcher')
    runner.wake('dispatcher')
    release()
    await advancing
    await runner.whenIdle()
    await runner.stop()
    assert.equal(passes, 3)
  })

  test('a failing pass is logged and tried again 30 s later', async ({ assert }) => {
    const clock = new ManualClock(START)
    const runner = new JobRunner(clock, db, logger)
    let attempts = 0
    runner.register({
      name: 'flaky',
      run: async () => {
        attempts++
        if (attempts === 1) throw new Error('disk full')
        return null
      },
    })
    await runner.start()
    await runner.whenIdle()
    assert.equal(attempts, 1)
    assert.equal(runner.dueAt('flaky')?.getTime(), Date.parse(START) + RETRY_AFTER_FAILURE_MS)
    const row = await db.from('scheduled_jobs').where('name', 'flaky').first()
    assert.equal(row.last_error, 'disk full')

    await clock.advance(RETRY_AFTER_FAILURE_MS)
    await runner.whenIdle()
    await runner.stop()
    assert.equal(attempts, 2)
  })

  test('stop waits for the pass in progress and nothing runs afterwards', async ({ assert }) => {
    const clock = new ManualClock(START)
    const runner = new JobRunner(clock, db, logger)
    let finished = false
    let passes = 0
    runner.register({
      name: 'slow',
      run: async (now) => {
        passes++
        await new Promise((resolve) => setTimeout(resolve, 50))
        finished = true
        return new Date(now.getTime() + 1000)
      },
    })
    await runner.start()
    await clock.advance(0)
    await runner.stop()
    assert.isTrue(finished)
    await clock.advance(10_000)
    assert.equal(passes, 1)
  })

  test('the time on disk is never later than the real one; wake-ups of a sleeping job write nothing more', async ({ assert }) => {
    const clock = new ManualClock(START)
    const runner = new JobRunner(clock, db, logger)
    let answer: Date | null = null
    let passes = 0
    runner.register({
      name: 'woken',
      run: async () => {
        passes++
        return answer
      },
    })
    const onDisk = async () => (await db.from('scheduled_jobs').where('name', 'woken').first()).due_at
    await runner.start()
    await runner.whenIdle()
    // Asleep after its first pass: the start time stays on disk (a restart runs it once more).
    assert.equal(await onDisk(), START)

    for (let minute = 1; minute <= 3; minute++) {
      await clock.advance(60_000)
      runner.wake('woken')
      await clock.advance(0)
      await runner.whenIdle()
    }
    assert.equal(passes, 4)
    assert.equal(await onDisk(), START)

    // A pass that says when it is next due writes it; a restart then waits for it.
    answer = new Date(Date.parse(START) + 3_600_000)
    runner.wake('woken')
    await clock.advance(0)
    await runner.whenIdle()
    assert.equal(await onDisk(), answer.toISOString())
    // Woken earlier than that: the earlier time goes to disk at once.
    await clock.advance(60_000)
    answer = null
    runner.wake('woken', new Date(Date.parse(START) + 30 * 60_000))
    await new Promise((resolve) => setTimeout(resolve, 20))
    assert.equal(await onDisk(), new Date(Date.parse(START) + 30 * 60_000).toISOString())
    await runner.stop()
  })
})
