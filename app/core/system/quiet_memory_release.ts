import { getHeapStatistics, setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** How often the process's CPU time and heap are read. */
export const CHECK_EVERY_MS = 5_000
/** Below this share of one core over a check's interval, the process counts as quiet. */
export const QUIET_CPU_SHARE = 0.02
/** The heap grown by at least this much since the last release: worth a collection. */
export const GROWTH_BYTES = 16 * 1024 * 1024

export interface ProcessReadings {
  /** CPU time of the whole process (every thread) so far, in µs. */
  cpuMicros(): number
  /**
   * Bytes of JavaScript heap the process holds (V8's committed heap: what it uses, the garbage
   * it has not collected and the room it keeps), which is what counts in its resident memory.
   */
  heapBytes(): number
  /** A full garbage collection, synchronous. */
  collect(): void
}

/**
 * Gives memory back once a burst of load is over (docs/operations.md, Memory).
 *
 * V8 lets garbage pile up in the old generation until the heap reaches its next limit, and its
 * memory reducer, which shrinks the heap when a process goes idle, only starts after a full
 * collection: a burst of requests that ends before one leaves the heap, and the resident memory
 * with it, at its peak for as long as the gateway stays quiet (hours at night). Every check
 * (CHECK_EVERY_MS), if the process used almost no CPU since the last one and its heap grew by
 * GROWTH_BYTES since the last release, one full collection is run; at the next quiet
 * check a second one, which V8 lets shrink the young generation once the allocation rate it
 * measures has fallen. A busy gateway is never interrupted; a quiet one pays one collection
 * (tens of ms) after each burst.
 */
export class QuietMemoryRelease {
  #lastCpu: number
  #releasedAt: number
  #followUp = false
  #timer: NodeJS.Timeout | null = null

  constructor(
    private readings: ProcessReadings,
    private options = { intervalMs: CHECK_EVERY_MS, quietShare: QUIET_CPU_SHARE, growthBytes: GROWTH_BYTES }
  ) {
    this.#lastCpu = readings.cpuMicros()
    // Start-up leaves garbage of its own (modules compiled, migrations checked): the first quiet
    // check releases it.
    this.#releasedAt = 0
  }

  /** One check; answers whether it collected. */
  check(): boolean {
    const cpu = this.readings.cpuMicros()
    const quiet = cpu - this.#lastCpu < this.options.intervalMs * 1000 * this.options.quietShare
    this.#lastCpu = cpu
    if (!quiet) return false
    const grown = this.readings.heapBytes() - this.#releasedAt >= this.options.growthBytes
    if (!grown && !this.#followUp) return false
    this.readings.collect()
    this.#followUp = grown
    this.#releasedAt = this.readings.heapBytes()
    // The collection's own CPU time is not load.
    this.#lastCpu = this.readings.cpuMicros()
    return true
  }

  start(): void {
    this.#timer ??= setInterval(() => this.check(), this.options.intervalMs).unref()
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = null
  }
}

/** This process: its CPU time, its heap, and V8's collector (exposed once, without a command-line flag). */
export function thisProcess(): ProcessReadings {
  setFlagsFromString('--expose-gc')
  const collect = runInNewContext('gc') as () => void
  return {
    cpuMicros: () => {
      const usage = process.cpuUsage()
      return usage.user + usage.system
    },
    heapBytes: () => getHeapStatistics().total_heap_size,
    collect,
  }
}
