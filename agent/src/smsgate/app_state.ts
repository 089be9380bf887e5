import { readFileSync } from 'node:fs'
import type { AppState } from './app_protocol.js'
import { StateFileWriter } from '../state_file_writer.js'

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
  readonly #writer: StateFileWriter | null

  constructor(
    readonly file?: string,
    private now: () => number = Date.now
  ) {
    this.#writer = file ? new StateFileWriter(file, () => this.state) : null
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

  /** Writes the file whole (StateFileWriter); at once without one. */
  save(): Promise<void> {
    return this.#writer?.save() ?? Promise.resolve()
  }

  /** Resolves once every change made so far is in the file. */
  written(): Promise<void> {
    return this.#writer?.written() ?? Promise.resolve()
  }
}
