import { statfs } from 'node:fs/promises'
import type { Logger } from '@adonisjs/core/logger'
import type { Clock, Timer } from '#core/time/clock'
import { databaseRefusal } from '#core/database/database_refusal'

/** What /health and the Overview say of the data folder and its database. */
export interface StorageStatus {
  /** `full`: writes are refused for lack of space since `fullSince`. */
  storage: 'ok' | 'full'
  /** `locked`: another program held the database's write lock at the last write. */
  database: 'ok' | 'locked'
  fullSince: string | null
}

/** The administrator alerts of the two turns (Settings > Notifications, Storage full alert). */
export interface StorageAlerts {
  full(since: Date): Promise<void>
  spaceBack(fullSince: Date, at: Date): Promise<void>
}

/** While full, how often the free space is looked at. */
export const STORAGE_RECHECK_MS = 10_000
/** Free space from which the disk counts as usable again (a batch of sends needs a few MB of WAL). */
export const FREE_BYTES_TO_RESUME = 8 * 1024 * 1024

/** The writer connection's statement events (knex). */
interface StatementEvents {
  on(event: 'query-error', listener: (error: unknown) => void): unknown
  on(event: 'query-response', listener: (response: unknown, query: { method?: string; sql?: string }) => void): unknown
}

/**
 * Watches the one condition of the machine that refuses every write: a full disk under the data
 * folder (and, beside it, another program holding the database's lock). It learns of it from
 * the writer connection (SQLITE_FULL on any statement) and from the log file (a refused line);
 * it says so once in the log and through the alerts, answers it to /health and the Overview,
 * and while full looks at the free space every few seconds to say when it is back.
 *
 * Space coming back is seen by looking (a statement that succeeds inside a transaction proves
 * nothing: its pages may not have reached the disk yet); the lock going is seen by the next
 * write that goes through.
 *
 * It refuses nothing itself: every write is still tried, SQLite refuses it whole (nothing is
 * half written) and the API answers 503 STORAGE_FULL; so sending resumes by itself the moment
 * space comes back, even before this watch notices.
 */
export class StorageHealth {
  #fullSince: Date | null = null
  #locked = false
  #recheck: Timer | null = null
  #stopped = false

  constructor(
    private clock: Clock,
    private logger: Logger,
    private folder: string,
    private alerts: () => Promise<StorageAlerts | null>
  ) {}

  status(): StorageStatus {
    return { storage: this.#fullSince ? 'full' : 'ok', database: this.#locked ? 'locked' : 'ok', fullSince: this.#fullSince?.toISOString() ?? null }
  }

  /** Listens to every statement of the writer connection. */
  watch(writer: StatementEvents): void {
    writer.on('query-error', (error) => {
      const refusal = databaseRefusal(error)
      if (refusal === 'full') this.reportFull('database')
      else if (refusal === 'locked') this.#lockSeen()
    })
    writer.on('query-response', (_response, query) => {
      // A statement that changed rows holds the write lock: no one else does any more.
      if (this.#locked && isWrite(query)) this.#lockGone()
    })
  }

  /** A write was refused for lack of space (`database`: SQLite; `log`: the log file). */
  reportFull(source: 'database' | 'log'): void {
    if (this.#fullSince || this.#stopped) return
    this.#fullSince = this.clock.now()
    this.logger.error(
      { source, folder: this.folder },
      "the data folder's disk is full: writes are refused (503 STORAGE_FULL) until space is freed; reads go on"
    )
    void this.#alert((alerts) => alerts.full(this.#fullSince!))
    this.#scheduleRecheck()
  }

  /** Looks at the free space now; says whether the disk counts as full afterwards. */
  async recheck(): Promise<boolean> {
    if (!this.#fullSince) return false
    let free: number
    try {
      const stats = await statfs(this.folder)
      free = Number(stats.bavail) * Number(stats.bsize)
    } catch {
      return true
    }
    if (free >= FREE_BYTES_TO_RESUME) this.#spaceBack()
    return this.#fullSince !== null
  }

  stop(): void {
    this.#stopped = true
    this.#recheck?.cancel()
    this.#recheck = null
  }

  #lockGone(): void {
    this.#locked = false
    this.logger.info('the database takes writes again: the other program let its lock go')
  }

  #lockSeen(): void {
    if (this.#locked) return
    this.#locked = true
    this.logger.warn('another program holds the database: writes wait 5 s, then are refused (503 DATABASE_BUSY) until it lets go')
  }

  #spaceBack(): void {
    const since = this.#fullSince
    if (!since) return
    this.#fullSince = null
    this.#recheck?.cancel()
    this.#recheck = null
    this.logger.info({ fullSince: since.toISOString() }, "the data folder's disk has room again: writes go through")
    void this.#alert((alerts) => alerts.spaceBack(since, this.clock.now()))
  }

  #scheduleRecheck(): void {
    if (this.#stopped || !this.#fullSince) return
    this.#recheck = this.clock.setTimer(STORAGE_RECHECK_MS, () => {
      this.#recheck = null
      const checked = this.recheck().then((full) => {
        if (full) this.#scheduleRecheck()
      })
      this.clock.track(checked)
    })
  }

  async #alert(send: (alerts: StorageAlerts) => Promise<void>): Promise<void> {
    try {
      const alerts = await this.alerts()
      if (alerts) await send(alerts)
    } catch (error) {
      this.logger.warn({ err: error }, 'a storage alert could not be sent')
    }
  }
}

function isWrite(query: { method?: string; sql?: string } | undefined): boolean {
  if (!query) return false
  if (query.method === 'insert' || query.method === 'update' || query.method === 'del') return true
  return query.method === 'raw' && /^\s*(insert|update|delete|replace)\b/i.test(query.sql ?? '')
}
