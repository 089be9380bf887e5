import { readFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { rename, writeFile } from 'node:fs/promises'
import type { AppState } from './app_protocol.js'

/** A message is remembered this long after its last change, as our agent remembers its orders. */
export const KEEP_MESSAGES_MS = 24 * 60 * 60_000

export interface AppStateFile {
  /** The API URL it was paired with: another gateway does not know its token. */
  apiUrl?: string
  id?: string
  token?: string
  login?: string
  /**
   * id → [state, epoch ms of its last change, failure text]. No phone number or text: the file
   * only says which ids the phone holds and where each stands, so none is ever sent twice.
   */
  messages: Record<string, [AppState, number, (string | null)?]>
}

/**
 * The simulated app's state file (mode 0600): its token and login, and the ids of the messages
 * it holds, so a restart reconnects without pairing and never carries out an id twice.
 */
export class AppStateStore {
  state: AppStateFile = { messages: {} }
  #queued: Promise<void> | null = null
  #last: Promise<void> = Promise.resolve()

  constructor(
    readonly file?: string,
    private now: () => number = Date.now
  ) {
    if (!file) return
    try {
      const read = JSON.parse(readFileSync(file, 'utf8')) as AppStateFile
      this.state = { ...read, messages: read.messages ?? {} }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
      throw new Error(`cannot read the state file ${file}: ${(error as Error).message}`)
    }
    this.prune()
  }

  /** Drops the messages whose last change is older than a day. */
  prune() {
    const cutoff = this.now() - KEEP_MESSAGES_MS
    for (const [id, [, at]] of Object.entries(this.state.messages)) if (at < cutoff) delete this.state.messages[id]
  }

  /**
   * Writes the file whole: a temporary file renamed over it, so a crash mid-write leaves the old
   * state. One write at a time; changes made during a write share the next.
   */
  save(): Promise<void> {
    const file = this.file
    if (!file) return Promise.resolve()
    if (!this.#queued) {
      const write = this.#last.then(async () => {
        this.#queued = null
        const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
        await writeFile(temporary, JSON.stringify(this.state), { mode: 0o600 })
        await rename(temporary, file)
      })
      this.#queued = write
      this.#last = write.catch(() => {})
    }
    return this.#queued
  }

  /** Resolves once every change made so far is in the file. */
  written(): Promise<void> {
    return this.#last
  }
}
