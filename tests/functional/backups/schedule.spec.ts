import { test } from '@japa/runner'
import { rmSync } from 'node:fs'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import logger from '@adonisjs/core/services/logger'
import { DataFolder } from '#core/data_folder/data_folder'
import { JobRunner } from '#core/jobs/job_runner'
import type { ManualClock } from '#core/time/clock'
import { SettingsStore } from '#core/settings/settings_store'
import { settingsCatalogue } from '#core/settings/settings_catalogue'
import { useManualClock } from '#tests/helpers/clock'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { BackupEngine, BackupSnapshot } from '#modules/backups/services/backup_engine'
import { BackupSchedule, nextRunAt } from '#modules/backups/services/backup_schedule'
import { backupScheduleJob } from '#modules/backups/jobs/backup_schedule_job'

const daily = (dailyAt: string, timezone: string) => ({ enabled: true, frequency: 'daily' as const, dailyAt, intervalHours: 24, timezone })

test.group('Backup schedule: next run across daylight saving (croner)', () => {
  test('{0}')
    .with([
      ['Paris, spring forward: 02:30 does not exist, runs at 03:00 CEST', daily('02:30', 'Europe/Paris'), '2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z'],
      ['Paris, the day after: back to 02:30 CEST', daily('02:30', 'Europe/Paris'), '2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z'],
      ['Paris, fall back: 02:30 occurs twice, runs at the first', daily('02:30', 'Europe/Paris'), '2026-10-24T00:30:00.000Z', '2026-10-25T00:30:00.000Z'],
      ['Paris, after the fall back: not again at the second 02:30', daily('02:30', 'Europe/Paris'), '2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z'],
      ['New York, spring forward: 02:30 runs at 03:00 EDT', daily('02:30', 'America/New_York'), '2026-03-07T07:30:00.000Z', '2026-03-08T07:00:00.000Z'],
      ['New York, fall back: 01:30 occurs twice, runs at the first', daily('01:30', 'America/New_York'), '2026-10-31T05:30:00.000Z', '2026-11-01T05:30:00.000Z'],
      ['New York, after the fall back: next day at 01:30 EST', daily('01:30', 'America/New_York'), '2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z'],
    ] as Array<[string, ReturnType<typeof daily>, string, string]>)
    .run(({ assert }, [, schedule, last, expected]) => {
      const now = new Date(Date.parse(last) + 60_000)
      assert.equal(nextRunAt(schedule, new Date(last), now)?.toISOString(), expected)
    })

  test('off: no next run; never run: due now; missed while stopped: due now, once', ({ assert }) => {
    const now = new Date('2026-05-10T12:00:00.000Z')
    assert.isNull(nextRunAt({ ...daily('03:00', 'UTC'), enabled: false }, null, now))
    assert.equal(nextRunAt(daily('03:00', 'UTC'), null, now)?.toISOString(), now.toISOString())
    assert.equal(nextRunAt(daily('03:00', 'UTC'), new Date('2026-05-07T03:00:00.000Z'), now)?.toISOString(), now.toISOString())
    assert.equal(nextRunAt({ ...daily('03:00', 'UTC'), frequency: 'interval', intervalHours: 6 }, new Date('2026-05-10T09:00:00.000Z'), now)?.toISOString(), '2026-05-10T15:00:00.000Z')
  })
})

test.group('Backup schedule on the clock', (group) => {
  let clock: ManualClock
  let runner: JobRunner
  let restoreClock: () => void
  let settings: SettingsStore

  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    rmSync(DataFolder.current().backupsDir, { recursive: true, force: true })
    await db.from('backup_attempts').delete()
    await db.from('scheduled_jobs').delete()
    settings = await app.container.make(SettingsStore)
    return async () => {
      await runner?.stop()
      app.container.restore(JobRunner)
      app.container.restore(BackupSnapshot)
      restoreClock?.()
      await settings.update({ backup: settingsCatalogue.defaults('backup'), sending: settingsCatalogue.defaults('sending') })
    }
  })

  /** The schedule job on a runner driven by a ManualClock starting at `start`, the copies written by `snapshot` when given. */
  async function startSchedule(start: string, snapshot?: BackupSnapshot) {
    const manual = useManualClock(start)
    clock = manual.clock
    restoreClock = manual.restore
    if (snapshot) app.container.swap(BackupSnapshot, () => snapshot)
    runner = new JobRunner(clock, db, logger)
    runner.register(backupScheduleJob(() => app.container.make(BackupSchedule)))
    app.container.swap(JobRunner, () => runner)
    await runner.start()
    await runner.whenIdle()
  }
  const scheduledRuns = async () =>
    (await db.from('backup_attempts').where('origin', 'scheduled').orderBy('id').select('started_at')).map((row) => row.started_at)
  async function advanceTo(iso: string) {
    // Hour by hour: the job looks again every minute on the way.
    while (clock.nowMs() < Date.parse(iso)) {
      await clock.advanceTo(new Date(Math.min(Date.parse(iso), clock.nowMs() + 3_600_000)))
      await runner.whenIdle()
    }
  }

  test('a fresh install backs up at once, then daily at 02:30 Paris time across spring forward', async ({ assert }) => {
    await settings.update({ sending: { timezone: 'Europe/Paris' }, backup: { frequency: 'daily', dailyAt: '02:30' } })
    await startSchedule('2026-03-28T00:00:00.000Z')
    assert.deepEqual(await scheduledRuns(), ['2026-03-28T00:00:00.000Z'])
    await advanceTo('2026-03-30T12:00:00.000Z')
    assert.deepEqual(await scheduledRuns(), [
      '2026-03-28T00:00:00.000Z',
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T01:00:00.000Z',
      '2026-03-30T00:30:00.000Z',
    ])
  })

  test('daily at 01:30 New York time across fall back: once on the day 01:30 occurs twice', async ({ assert }) => {
    await settings.update({ sending: { timezone: 'America/New_York' }, backup: { frequency: 'daily', dailyAt: '01:30' } })
    await db.table('backup_attempts').insert({ name: 'gateway-old.db', origin: 'scheduled', outcome: 'success', started_at: '2026-10-31T05:30:00.000Z', finished_at: '2026-10-31T05:30:01.000Z' })
    await startSchedule('2026-10-31T12:00:00.000Z')
    await advanceTo('2026-11-02T12:00:00.000Z')
    assert.deepEqual(await scheduledRuns(), ['2026-10-31T05:30:00.000Z', '2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z'])
  })

  test('a run missed while the gateway was stopped is made once at start; a manual backup does not shift the schedule', async ({ client, assert }) => {
    await settings.update({ backup: { frequency: 'daily', dailyAt: '03:00' } })
    const savedAt = await settings.savedAt('backup')
    await db.table('backup_attempts').insert({ name: 'gateway-old.db', origin: 'scheduled', outcome: 'success', started_at: '2026-05-07T03:00:00.000Z', finished_at: '2026-05-07T03:00:01.000Z' })
    await startSchedule('2026-05-10T12:00:00.000Z')
    assert.deepEqual((await scheduledRuns()).slice(1), ['2026-05-10T12:00:00.000Z'])
    const before = (await client.get('/api/v1/backups/schedule').header('x-api-key', testKeys.admin)).body()
    assert.equal(before.nextRunAt, '2026-05-11T03:00:00.000Z')
    ;(await client.post('/api/v1/backups').header('x-api-key', testKeys.admin)).assertStatus(201)
    const after = (await client.get('/api/v1/backups/schedule').header('x-api-key', testKeys.admin)).body()
    assert.deepEqual(after, {
      enabled: true,
      frequency: 'daily',
      dailyAt: '03:00',
      timezone: 'UTC',
      intervalSeconds: 86_400,
      retention: 7,
      lastAttemptAt: '2026-05-10T12:00:00.000Z',
      nextRunAt: '2026-05-11T03:00:00.000Z',
      savedAt,
    })
    await advanceTo('2026-05-11T04:00:00.000Z')
    assert.deepEqual((await scheduledRuns()).slice(1), ['2026-05-10T12:00:00.000Z', '2026-05-11T03:00:00.000Z'])
  })

  test('interval mode counts from the previous automatic attempt, failed or not', async ({ assert }) => {
    await settings.update({ backup: { frequency: 'interval', intervalHours: 2 } })
    await startSchedule('2026-06-01T00:00:00.000Z', { copy: async () => Promise.reject(Object.assign(new Error('full'), { code: 'ENOSPC' })) })
    await advanceTo('2026-06-01T05:00:00.000Z')
    const attempts = await db.from('backup_attempts').orderBy('id').select('started_at', 'outcome')
    assert.deepEqual(
      attempts.map((row) => `${row.started_at} ${row.outcome}`),
      ['2026-06-01T00:00:00.000Z failed', '2026-06-01T02:00:00.000Z failed', '2026-06-01T04:00:00.000Z failed']
    )
  })

  test('an automatic backup due during another waits for the next minute', async ({ assert }) => {
    await settings.update({ backup: { frequency: 'interval', intervalHours: 1 } })
    await db.table('backup_attempts').insert({ name: 'gateway-old.db', origin: 'scheduled', outcome: 'success', started_at: '2026-08-01T09:00:30.000Z', finished_at: '2026-08-01T09:00:31.000Z' })
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    await startSchedule('2026-08-01T10:00:00.000Z', {
      copy: async (source, target) => {
        await held
        const { snapshotDatabase } = await import('#core/database/database_snapshot')
        await snapshotDatabase(source, target)
      },
    })
    // A manual backup is under way when the automatic one falls due (10:00:30).
    const manual = (await app.container.make(BackupEngine)).run('manual', null)
    await clock.advance(30_000)
    await runner.whenIdle()
    assert.deepEqual((await scheduledRuns()).slice(1), [])
    release()
    await manual
    await clock.advance(60_000)
    await runner.whenIdle()
    assert.deepEqual((await scheduledRuns()).slice(1), ['2026-08-01T10:01:30.000Z'])
  })

  test('off: nextRunAt is null and nothing runs; turning it on applies within a minute', async ({ client, assert }) => {
    await settings.update({ backup: { enabled: false } })
    await startSchedule('2026-07-01T00:00:00.000Z')
    await advanceTo('2026-07-03T00:00:00.000Z')
    assert.deepEqual(await scheduledRuns(), [])
    assert.isNull((await client.get('/api/v1/backups/schedule').header('x-api-key', testKeys.admin)).body().nextRunAt)
    await settings.update({ backup: { enabled: true } })
    await clock.advance(60_000)
    await runner.whenIdle()
    assert.lengthOf(await scheduledRuns(), 1)
  })

  test('savedAt: null while no one saved the schedule, then the last save of its section, read back from the database', async ({ client, assert }) => {
    await db.from('settings').where('section', 'backup').delete()
    settings.invalidate()
    const schedule = async () => (await client.get('/api/v1/backups/schedule').header('x-api-key', testKeys.admin)).body()
    assert.isNull((await schedule()).savedAt)

    const manual = useManualClock('2026-05-10T12:00:00.000Z')
    restoreClock = manual.restore
    // Saved as it is (the defaults): looking at the schedule and keeping it is a choice too.
    ;(await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ backup: settingsCatalogue.defaults('backup') })).assertStatus(200)
    assert.equal((await schedule()).savedAt, '2026-05-10T12:00:00.000Z')

    await manual.clock.advance(3_600_000)
    ;(await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ sending: { timezone: 'Europe/Paris' } })).assertStatus(200)
    assert.equal((await schedule()).savedAt, '2026-05-10T12:00:00.000Z', 'another section saved leaves it')

    ;(await client.patch('/api/v1/settings').header('x-api-key', testKeys.admin).json({ backup: { retention: 9 } })).assertStatus(200)
    settings.invalidate()
    assert.equal((await schedule()).savedAt, '2026-05-10T13:00:00.000Z')
  })
})
