import { Cron } from 'croner'
import type { Database } from '@adonisjs/lucid/database'
import type { Clock } from '#core/time/clock'
import type { SettingsStore } from '#core/settings/settings_store'
import type { BackupEngine } from '#modules/backups/services/backup_engine'
import type { BackupScheduleState } from '#modules/backups/schemas'

/** A settings change applies within a minute: the schedule looks again at least this often. */
export const RECHECK_MS = 60_000

/**
 * When automatic backups run (docs/operations.md, The schedule): daily at HH:MM in the platform
 * time zone (croner follows daylight saving: a time skipped by the change runs just after the
 * skipped hour, a time that occurs twice runs once), or every N hours counted from the previous
 * automatic attempt, failed or not. A missed run (the gateway was stopped) is made once at start;
 * a gateway that never made one makes its first on the next pass. Manual backups do not count.
 */
export class BackupSchedule {
  constructor(
    private db: Database,
    private clock: Clock,
    private settings: () => Promise<SettingsStore>,
    private engine: () => Promise<BackupEngine>
  ) {}

  async state(now = this.clock.now()): Promise<BackupScheduleState> {
    const store = await this.settings()
    const backup = await store.get('backup')
    const { timezone } = await store.get('sending')
    const last = await this.db.from('backup_attempts').where('origin', 'scheduled').orderBy('started_at', 'desc').select('started_at').first()
    const lastAttemptAt = last ? new Date(last.started_at) : null
    return {
      enabled: backup.enabled,
      frequency: backup.frequency,
      dailyAt: backup.dailyAt,
      timezone,
      intervalSeconds: backup.intervalHours * 3600,
      retention: backup.retention,
      lastAttemptAt: lastAttemptAt?.toISOString() ?? null,
      nextRunAt: nextRunAt({ ...backup, timezone }, lastAttemptAt, now)?.toISOString() ?? null,
    }
  }

  /** One pass of the schedule job: takes the backup when due; says when to look again. */
  async pass(now: Date): Promise<Date> {
    const recheck = new Date(now.getTime() + RECHECK_MS)
    const { nextRunAt: next } = await this.state(now)
    if (next === null) return recheck
    if (Date.parse(next) > now.getTime()) return new Date(Math.min(Date.parse(next), recheck.getTime()))
    const engine = await this.engine()
    // An automatic backup that falls during another waits for the next minute.
    if (engine.busy) return recheck
    await engine.run('scheduled')
    return recheck
  }
}

export function nextRunAt(
  schedule: { enabled: boolean; frequency: 'daily' | 'interval'; dailyAt: string; intervalHours: number; timezone: string },
  lastAutomatic: Date | null,
  now: Date
): Date | null {
  if (!schedule.enabled) return null
  if (!lastAutomatic) return now
  let due: Date | null
  if (schedule.frequency === 'interval') {
    due = new Date(lastAutomatic.getTime() + schedule.intervalHours * 3_600_000)
  } else {
    const [hours, minutes] = schedule.dailyAt.split(':').map(Number)
    const cron = new Cron(`${minutes} ${hours} * * *`, { timezone: schedule.timezone, paused: true })
    due = cron.nextRun(lastAutomatic)
    cron.stop()
  }
  if (!due) return null
  return due.getTime() <= now.getTime() ? now : due
}
