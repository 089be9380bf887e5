/** What writing a batch gave: one answer per item, in order, and what to do once they are given. */
export interface WrittenBatch<R> {
  /** The item's result, or the error that refuses that item alone (its promise rejects with it). */
  results: Array<R | Error>
  /** Runs once every item of the batch is answered (announce what was written). */
  afterAnswers?: () => Promise<void>
}

export interface GroupCommitOptions<T, R> {
  /** Writes items together (one transaction, or guarded statements); throws when the batch fails as a whole. */
  write: (items: T[]) => Promise<WrittenBatch<R>>
  /** How much of a batch an item takes (default 1); a batch always takes at least one item. */
  weight?: (item: T) => number
  /** The most a batch may take. */
  maxBatchWeight: number
  /** An error thrown by afterAnswers: the items are answered already, so it is only reported. */
  onAfterAnswersError: (error: unknown) => void
}

interface Waiting<T, R> {
  item: T
  resolve: (result: R) => void
  reject: (error: unknown) => void
}

/**
 * Group commit. SQLite writes through one connection, one statement at a time, so writing each
 * request on its own caps a hot path at a few hundred writes a second. Items that arrive while
 * a batch is being written wait for the next one, and a batch costs a few multi-row statements
 * whatever its size. Each item still succeeds or fails on its own: when a batch fails as a
 * whole, its items are written again one by one, so the fault fails only the item causing it.
 * Batches are written one after the other, in arrival order.
 */
export class GroupCommit<T, R> {
  #waiting: Array<Waiting<T, R>> = []
  /** The drain under way, from the first item added until the last batch is answered. */
  #draining: Promise<void> | null = null

  constructor(private options: GroupCommitOptions<T, R>) {}

  /** Resolves with the item's result once it is written; rejects when it was refused. */
  add(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject })
      if (!this.#draining) {
        // Let the items that arrive in the same turn of the event loop join this batch.
        this.#draining = new Promise<void>((drained) => setImmediate(() => void this.#drain().then(drained)))
      }
    })
  }

  /** Resolves once every item added so far is written and answered (and its announcements made). */
  async idle(): Promise<void> {
    while (this.#draining) await this.#draining
  }

  async #drain() {
    try {
      while (this.#waiting.length) {
        const batch = this.#takeBatch()
        try {
          await this.#writeAndAnswer(batch)
        } catch (error) {
          if (batch.length === 1) batch[0].reject(error)
          else for (const waiting of batch) await this.#writeAndAnswer([waiting]).catch(waiting.reject)
        }
      }
    } finally {
      this.#draining = null
    }
  }

  /** Throws only when the write fails as a whole (nothing answered then). */
  async #writeAndAnswer(batch: Array<Waiting<T, R>>) {
    const written = await this.options.write(batch.map((waiting) => waiting.item))
    batch.forEach((waiting, index) => {
      const result = written.results[index]
      if (result instanceof Error) waiting.reject(result)
      else waiting.resolve(result)
    })
    try {
      await written.afterAnswers?.()
    } catch (error) {
      this.options.onAfterAnswersError(error)
    }
  }

  #takeBatch(): Array<Waiting<T, R>> {
    const weight = this.options.weight ?? (() => 1)
    let total = 0
    let taken = 0
    while (taken < this.#waiting.length) {
      const next = weight(this.#waiting[taken].item)
      if (taken > 0 && total + next > this.options.maxBatchWeight) break
      total += next
      taken++
    }
    return this.#waiting.splice(0, taken)
  }
}
