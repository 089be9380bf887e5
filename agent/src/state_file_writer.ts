import { randomBytes } from 'node:crypto'
import { rename, writeFile } from 'node:fs/promises'

/**
 * Writes a state file whole (mode 0600): a temporary file renamed over it, so a crash mid-write
 * leaves the old state, never half of one. One write at a time; changes made during a write
 * share the next, whose content is taken when it starts.
 */
export class StateFileWriter {
  #queued: Promise<void> | null = null
  #last: Promise<void> = Promise.resolve()

  constructor(
    private file: string,
    private content: () => unknown
  ) {}

  save(): Promise<void> {
    if (!this.#queued) {
      const write = this.#last.then(async () => {
        this.#queued = null
        // Its own name per write: another copy of the agent (a restart in the same process, or a
        // second agent pointed at the same file by mistake) must not rename this one away.
        const temporary = `${this.file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
        await writeFile(temporary, JSON.stringify(this.content()), { mode: 0o600 })
        await rename(temporary, this.file)
      })
      this.#queued = write
      this.#last = write.catch(() => {})
    }
    return this.#queued
  }

  /** Resolves once every change made so far is in the file (a failed write was answered already). */
  written(): Promise<void> {
    return this.#last
  }
}
