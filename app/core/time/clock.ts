/**
 * The only source of "now" for business code. The container holds one GatewayClock, taken once
 * by every service; tests point it at a ManualClock and move time instead of sleeping (retry
 * waits, schedules, quotas, phone silence).
 */
export interface Timer {
  cancel(): void
}

export abstract class Clock {
  abstract now(): Date

  /** Calls `callback` once, `delayMs` from now on this clock. */
  abstract setTimer(delayMs: number, callback: () => void): Timer

  nowMs(): number {
    return this.now().getTime()
  }

  /**
   * Declares asynchronous work started by a timer. The system clock ignores it; a ManualClock
   * waits for it before moving time further, so a test's timeline stays in order.
   */
  track(_work: Promise<unknown>): void {}
}

/** Node's setTimeout caps a delay at 2^31-1 ms; longer waits are re-armed in steps. */
const MAX_NODE_DELAY = 2_147_483_647

export class SystemClock extends Clock {
  now(): Date {
    return new Date()
  }

  setTimer(delayMs: number, callback: () => void): Timer {
    // Due now (a job woken by a send): the next turn of the event loop, not setTimeout's floor
    // of 1 ms, a large part of the time from a send's 202 to its order at an idle phone (README,
    // Benchmarks).
    if (delayMs <= 0) {
      const immediate = setImmediate(callback)
      immediate.unref?.()
      return { cancel: () => clearImmediate(immediate) }
    }
    const dueAt = Date.now() + delayMs
    let handle: NodeJS.Timeout
    const arm = () => {
      const left = dueAt - Date.now()
      if (left > MAX_NODE_DELAY) {
        handle = setTimeout(arm, MAX_NODE_DELAY)
      } else {
        handle = setTimeout(callback, Math.max(0, left))
      }
      handle.unref?.()
    }
    arm()
    return { cancel: () => clearTimeout(handle) }
  }
}

/**
 * The gateway's one clock, bound once in the container: the system's time, unless a test points
 * it at a ManualClock (tests/helpers/clock.ts, useManualClock) and back. Services take it once;
 * what they read and arm follows the source of the moment (a timer stays on the source it was
 * armed on).
 */
export class GatewayClock extends Clock {
  readonly #system: Clock
  #source: Clock

  constructor(system: Clock = new SystemClock()) {
    super()
    this.#system = system
    this.#source = system
  }

  /** Reads and arms time on `source` until `useSystemTime()`. */
  use(source: Clock): void {
    this.#source = source
  }

  useSystemTime(): void {
    this.#source = this.#system
  }

  now(): Date {
    return this.#source.now()
  }

  setTimer(delayMs: number, callback: () => void): Timer {
    return this.#source.setTimer(delayMs, callback)
  }

  track(work: Promise<unknown>): void {
    this.#source.track(work)
  }
}

interface PendingTimer {
  dueAt: number
  seq: number
  callback: () => void
  cancelled: boolean
}

/**
 * A clock that only moves when told to. `advance` fires due timers in time order, letting the
 * asynchronous work each one starts settle before moving on, so a test reads like a timeline.
 */
export class ManualClock extends Clock {
  #now: number
  #timers: PendingTimer[] = []
  #seq = 0
  #work = new Set<Promise<unknown>>()

  constructor(start: Date | string = '2026-01-15T10:00:00.000Z') {
    super()
    this.#now = new Date(start).getTime()
  }

  now(): Date {
    return new Date(this.#now)
  }

  setTimer(delayMs: number, callback: () => void): Timer {
    const timer: PendingTimer = {
      dueAt: this.#now + Math.max(0, delayMs),
      seq: this.#seq++,
      callback,
      cancelled: false,
    }
    this.#timers.push(timer)
    return {
      cancel: () => {
        timer.cancelled = true
      },
    }
  }

  track(work: Promise<unknown>): void {
    const settled = work.then(
      () => {},
      () => {}
    )
    this.#work.add(settled)
    void settled.then(() => this.#work.delete(settled))
  }

  /** Number of timers still waiting, for tests that check nothing is left armed. */
  get pendingTimers(): number {
    return this.#timers.filter((timer) => !timer.cancelled).length
  }

  async advance(ms: number): Promise<void> {
    await this.advanceTo(new Date(this.#now + ms))
  }

  async advanceTo(target: Date): Promise<void> {
    const targetMs = target.getTime()
    if (targetMs < this.#now) throw new Error('ManualClock cannot go backwards')
    for (;;) {
      await this.#settle()
      this.#timers = this.#timers.filter((timer) => !timer.cancelled)
      const next = this.#timers
        .filter((timer) => timer.dueAt <= targetMs)
        .sort((a, b) => a.dueAt - b.dueAt || a.seq - b.seq)[0]
      if (!next) break
      this.#now = Math.max(this.#now, next.dueAt)
      this.#timers.splice(this.#timers.indexOf(next), 1)
      next.callback()
    }
    this.#now = targetMs
    await this.#settle()
  }

  /** Lets the work started by fired timers finish (and the work it starts) before time moves. */
  async #settle() {
    do {
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve))
      await Promise.all(this.#work)
    } while (this.#work.size)
  }
}
