import type { Database } from '@adonisjs/lucid/database'
import type { Logger } from '@adonisjs/core/logger'
import type { Clock, Timer } from '#core/time/clock'
import { logSafeError } from '#core/logging/redaction'

/**
 * A background job: dispatch, webhook deliveries, backup schedule, phone liveness, expiry.
 * `run` does one pass and says when the next is due (null: sleep until woken). The work itself
 * lives in rows with their own due times, so a pass always starts from what the database says.
 */
export interface JobDefinition {
  name: string
  run(now: Date): Promise<Date | null>
}

interface JobState {
  definition: JobDefinition
  dueAt: number | null
  running: Promise<void> | null
  /** The due time on disk (as far as this runner knows): never later than the real one. */
  persistedDueAt: number | null
}

/** A pass that throws is tried again after this long, not in a tight loop. */
export const RETRY_AFTER_FAILURE_MS = 30_000

const TABLE = 'scheduled_jobs'

/**
 * Runs jobs inside the server process, on the clock (so tests move time instead of sleeping),
 * one pass at a time per job, with each job's next due time kept in SQLite so a restart
 * resumes where it stopped.
 *
 * The time on disk only has to be no later than the real one: a pass too many is harmless
 * (a pass starts from what the database says), a pass missed is not. So a wake-up that is not
 * earlier than what is on disk, and a pass that ends with the job asleep, write nothing: the
 * dispatcher, woken by every send, costs no write of its own.
 */
export class JobRunner {
  readonly #jobs = new Map<string, JobState>()
  #timer: Timer | null = null
  #timerDueAt: number | null = null
  #started = false
  #stopped = false

  constructor(
    private clock: Clock,
    private db: Database,
    private logger: Logger
  ) {}

  register(definition: JobDefinition): void {
    if (this.#jobs.has(definition.name)) throw new Error(`Job ${definition.name} is registered twice`)
    this.#jobs.set(definition.name, { definition, dueAt: null, running: null, persistedDueAt: null })
    if (this.#started) {
      this.#load(definition.name)
        .then(() => this.#arm())
        .catch((error) => this.logger.error({ err: logSafeError(error), job: definition.name }, 'could not load a job'))
    }
  }

  /** Whether this runner carries the job (a test's runner carries only the jobs it tests). */
  has(name: string): boolean {
    return this.#jobs.has(name)
  }

  get started(): boolean {
    return this.#started
  }

  /** Loads persisted due times (a job never run before is due now) and starts the timer. */
  async start(): Promise<void> {
    if (this.#started) return
    this.#started = true
    this.#stopped = false
    for (const name of this.#jobs.keys()) await this.#load(name)
    this.#arm()
  }

  /**
   * Makes a job due at `at` (default now) unless it is already due earlier. Called when new
   * work appears (a message queued, an event to deliver).
   */
  wake(name: string, at: Date = this.clock.now()): void {
    const job = this.#jobs.get(name)
    if (!job) throw new Error(`Unknown job ${name}`)
    const atMs = at.getTime()
    if (job.dueAt === null || atMs < job.dueAt) {
      job.dueAt = atMs
      if (this.#started) {
        if (job.persistedDueAt === null || atMs < job.persistedDueAt) void this.#persistDue(job, atMs)
        this.#arm()
      }
    }
  }

  /** When a job is next due, or null when it sleeps until woken. */
  dueAt(name: string): Date | null {
    const dueAt = this.#jobs.get(name)?.dueAt
    return dueAt === null || dueAt === undefined ? null : new Date(dueAt)
  }

  /** Stops the timer and waits for passes in progress to finish. */
  async stop(): Promise<void> {
    this.#stopped = true
    this.#timer?.cancel()
    this.#timer = null
    this.#timerDueAt = null
    await Promise.all([...this.#jobs.values()].map((job) => job.running))
    this.#started = false
  }

  /** Resolves once no pass is running and none is due: what a test awaits after moving time. */
  async whenIdle(): Promise<void> {
    for (;;) {
      const running = [...this.#jobs.values()].map((job) => job.running).filter(Boolean)
      if (running.length) {
        await Promise.all(running)
        continue
      }
      if (!this.#started || this.#stopped) return
      if (!this.#runDueJobs()) return
    }
  }

  async #load(name: string) {
    const job = this.#jobs.get(name)!
    const row = await this.db.from(TABLE).where('name', name).first()
    if (row) {
      const persisted = row.due_at === null ? null : Date.parse(row.due_at)
      job.persistedDueAt = persisted
      // A wake-up made before start (job.dueAt) is kept when it is earlier.
      job.dueAt = persisted === null ? job.dueAt : job.dueAt === null ? persisted : Math.min(persisted, job.dueAt)
    } else {
      job.dueAt = Math.min(job.dueAt ?? Infinity, this.clock.nowMs())
      job.persistedDueAt = job.dueAt
      await this.db.table(TABLE).insert({ name, due_at: new Date(job.dueAt).toISOString() })
    }
  }

  #arm() {
    if (!this.#started || this.#stopped) return
    const next = Math.min(...[...this.#jobs.values()].filter((job) => job.dueAt !== null && !job.running).map((job) => job.dueAt!))
    if (!Number.isFinite(next)) return
    if (this.#timer && this.#timerDueAt !== null && this.#timerDueAt <= next) return
    this.#timer?.cancel()
    this.#timerDueAt = next
    this.#timer = this.clock.setTimer(next - this.clock.nowMs(), () => {
      this.#timer = null
      this.#timerDueAt = null
      this.#runDueJobs()
      this.#arm()
    })
  }

  /** Starts every due job that is not already running; says whether it started any. */
  #runDueJobs(): boolean {
    const now = this.clock.nowMs()
    let startedAny = false
    for (const job of this.#jobs.values()) {
      if (job.running || job.dueAt === null || job.dueAt > now) continue
      startedAny = true
      job.running = this.#runOnce(job).finally(() => {
        job.running = null
        this.#arm()
      })
      this.clock.track(job.running)
    }
    return startedAny
  }

  async #runOnce(job: JobState) {
    const { name } = job.definition
    const startedAt = this.clock.now()
    // While a pass runs, dueAt only records wake-ups that arrive during it.
    job.dueAt = null
    let next: number | null
    let lastError: string | null = null
    try {
      const result = await job.definition.run(startedAt)
      next = result ? result.getTime() : null
    } catch (error) {
      lastError = logSafeError(error).message
      this.logger.error({ err: logSafeError(error), job: name }, `job ${name} failed; trying again in ${RETRY_AFTER_FAILURE_MS / 1000} s`)
      next = this.clock.nowMs() + RETRY_AFTER_FAILURE_MS
    }
    // New work that appeared during the pass may be due before what the pass returned.
    if (job.dueAt !== null && (next === null || job.dueAt < next)) next = job.dueAt
    job.dueAt = next
    // Asleep (null) or due at the time already on disk: nothing to write. A failure is always
    // recorded, so the operator can see it.
    if (lastError === null && (next === null || next === job.persistedDueAt)) return
    try {
      await this.db
        .from(TABLE)
        .where('name', name)
        .update({
          due_at: next === null ? null : new Date(next).toISOString(),
          last_started_at: startedAt.toISOString(),
          last_finished_at: this.clock.now().toISOString(),
          last_error: lastError,
        })
      job.persistedDueAt = next
    } catch (error) {
      // The due time is kept in memory; losing its copy on disk must not stop the process.
      this.logger.warn({ err: logSafeError(error), job: name }, 'could not record a job pass')
    }
  }

  async #persistDue(job: JobState, atMs: number) {
    const { name } = job.definition
    const previous = job.persistedDueAt
    job.persistedDueAt = atMs
    try {
      await this.db
        .from(TABLE)
        .where('name', name)
        .where((query) => query.whereNull('due_at').orWhere('due_at', '>', new Date(atMs).toISOString()))
        .update({ due_at: new Date(atMs).toISOString() })
    } catch (error) {
      job.persistedDueAt = previous
      this.logger.warn({ err: error, job: name }, 'could not persist a job wake-up; it is kept in memory')
    }
  }
}
