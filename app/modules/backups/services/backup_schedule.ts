import { Cron } from 'croner'
import { inject } from '@adonisjs/core'
import { Clock } from '#core/time/clock'
import { SettingsStore } from '#core/settings/settings_store'
import { BackupEngine } from '#modules/backups/services/backup_engine'
import { BackupAttemptStore } from '#modules/backups/stores/backup_attempt_store'
import type { BackupScheduleState } from '#modules/backups/schemas'

/** A settings change applies within a minute: the schedule looks again at least this often. */
export const RECHECK_MS = 60_000

/**
 * When automatic backups run (docs/operations.md, The schedule): daily at HH:MM in the platform
 * time zone (croner follows daylight saving: a time skipped by the change runs just after the
 * skipped hour, a time that occurs twice runs once), or every N hours counted from the previous
 * automatic attempt, failed or not. A missed run (the gateway was stopped) is made once at start;
 * a gateway that never made one makes its first on the next pass. Manual backups do not count.
 * Resolved for each pass and request, so it runs the engine the container holds then.
 */
@inject()
export class BackupSchedule {
  constructor(
    private attempts: BackupAttemptStore,
    private clock: Clock,
    private settings: SettingsStore,
    private engine: BackupEngine
  ) {}

  async state(now = this.clock.now()): Promise<BackupScheduleState> {
    const backup = await this.settings.get('backup')
    const { timezone } = await this.settings.get('sending')
    const lastAttemptAt = await this.attempts.lastScheduledStart()
    return {
      enabled: backup.enabled,
      frequency: backup.frequency,
      dailyAt: backup.dailyAt,
      timezone,
      intervalSeconds: backup.intervalHours * 3600,
      retention: backup.retention,
      lastAttemptAt: lastAttemptAt?.toISOString() ?? null,
      nextRunAt: nextRunAt({ ...backup, timezone }, lastAttemptAt, now)?.toISOString() ?? null,
      savedAt: await this.settings.savedAt('backup'),
    }
  }

  /** One pass of the schedule job: takes the backup when due; says when to look again. */
  async pass(now: Date): Promise<Date> {
    const recheck = new Date(now.getTime() + RECHECK_MS)
    const { nextRunAt: next } = await this.state(now)
    if (next === null) return recheck
    if (Date.parse(next) > now.getTime()) return new Date(Math.min(Date.parse(next), recheck.getTime()))
    // An automatic backup that falls during another waits for the next minute.
    if (this.engine.busy) return recheck
    await this.engine.run('scheduled', null)
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
