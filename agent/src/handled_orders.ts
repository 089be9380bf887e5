import { readFileSync } from 'node:fs'
import { StateFileWriter } from './state_file_writer.js'
import type { TrackedSnapshot } from './modem/pdu/index.js'

/**
 * What became of each send order, by messageId. docs/device-protocol.md §5: the agent remembers
 * the messageIds it handled for at least a day, so a repeated order never sends the SMS twice.
 * With a state file this survives a restart of the agent.
 *
 * `interrupted`: the agent stopped while the driver was sending; whether the SMS left is unknown.
 */
export type OrderOutcome = 'sending' | 'sent' | 'failed' | 'interrupted'

/** The period of docs/device-protocol.md §5 ("at least for a day"). */
export const KEEP_HANDLED_MS = 24 * 60 * 60_000

interface StateFile {
  /** The phone's device credential, so a restart needs only the file (mode 0600). */
  credential?: string
  /** The modem driver's last concatenation reference (0-255), so a restart does not reuse it at once. */
  concatenationReference?: number
  /**
   * The modem driver's sent messages waiting for status reports: [messageId, the parts' TP-MRs,
   * those reported delivered, the recipient's last nine digits, epoch ms sent].
   */
  deliveries?: Array<[string, number[], number[], string | null, number]>
  /**
   * messageId → [outcome, epoch ms, failure reason, reported]. No phone number or text: the
   * file only says what was done, and whether the gateway acknowledged the report of it.
   */
  orders: Record<string, [OrderOutcome, number, (string | null)?, boolean?]>
}

interface Entry {
  outcome: OrderOutcome
  at: number
  reason?: string
  /** The gateway acknowledged the report of the outcome. */
  reported: boolean
}

/** An outcome the gateway has not acknowledged yet. */
export interface UnreportedOutcome {
  messageId: string
  outcome: 'sent' | 'failed' | 'interrupted'
  reason?: string
}

export class HandledOrders {
  /** In the order they were last changed, so pruning stops at the first recent one. */
  readonly #orders = new Map<string, Entry>()
  /** The device credential kept in the state file (null: none kept). */
  credential: string | null = null
  /** The modem driver's last concatenation reference (null: none used yet). */
  concatenationReference: number | null = null
  /** The modem driver's messages waiting for status reports. */
  deliveries: TrackedSnapshot[] = []
  readonly #writer: StateFileWriter | null

  constructor(
    file?: string,
    private now: () => number = Date.now
  ) {
    this.#writer = file ? new StateFileWriter(file, () => this.#content()) : null
    if (!file) return
    let state: StateFile
    try {
      state = JSON.parse(readFileSync(file, 'utf8'))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
      throw new Error(`cannot read the state file ${file}: ${(error as Error).message}`)
    }
    if (typeof state.credential === 'string') this.credential = state.credential
    if (Number.isInteger(state.concatenationReference)) this.concatenationReference = state.concatenationReference! & 0xff
    if (Array.isArray(state.deliveries)) {
      this.deliveries = state.deliveries
        .filter((entry) => Array.isArray(entry) && typeof entry[0] === 'string' && Array.isArray(entry[1]) && Array.isArray(entry[2]) && Number.isFinite(entry[4]))
        .map(([messageId, references, delivered, recipient, at]) => ({ messageId, references, delivered, recipient: typeof recipient === 'string' ? recipient : null, at }))
    }
    const entries = Object.entries(state.orders ?? {}).sort((a, b) => a[1][1] - b[1][1])
    for (const [messageId, [outcome, at, reason, reported]] of entries) {
      // A send under way when the agent stopped may or may not have left the phone: the gateway
      // must hear so. A file without the flag (an older agent's) counts as reported.
      if (outcome === 'sending') this.#orders.set(messageId, { outcome: 'interrupted', at, reported: false })
      else this.#orders.set(messageId, { outcome, at, reason: reason ?? undefined, reported: reported ?? true })
    }
    this.#prune()
  }

  /**
   * Outcomes whose report the gateway never acknowledged, a stop having come first (read from
   * the state file): without them the gateway would wait for those messages forever.
   */
  unreported(): UnreportedOutcome[] {
    const pending: UnreportedOutcome[] = []
    for (const [messageId, { outcome, reason, reported }] of this.#orders) {
      if (!reported && outcome !== 'sending') pending.push({ messageId, outcome, reason })
    }
    return pending
  }

  /** The gateway acknowledged the report of this order's outcome. */
  markReported(messageId: string): Promise<void> {
    const entry = this.#orders.get(messageId)
    if (!entry || entry.reported) return Promise.resolve()
    entry.reported = true
    return this.save()
  }

  outcome(messageId: string): OrderOutcome | undefined {
    return this.#orders.get(messageId)?.outcome
  }

  /** Records an outcome; resolves once it is in the state file (at once without one). */
  record(messageId: string, outcome: OrderOutcome, reason?: string): Promise<void> {
    this.#orders.delete(messageId)
    this.#orders.set(messageId, { outcome, at: this.now(), reason, reported: false })
    this.#prune()
    return this.save()
  }

  /** Writes the file whole (StateFileWriter); at once without one. */
  save(): Promise<void> {
    return this.#writer?.save() ?? Promise.resolve()
  }

  /** What the state file holds now. */
  #content(): StateFile {
    const state: StateFile = {
      ...(this.credential ? { credential: this.credential } : {}),
      ...(this.concatenationReference !== null ? { concatenationReference: this.concatenationReference } : {}),
      ...(this.deliveries.length
        ? { deliveries: this.deliveries.map(({ messageId, references, delivered, recipient, at }) => [messageId, references, delivered, recipient, at] as [string, number[], number[], string | null, number]) }
        : {}),
      orders: {},
    }
    for (const [messageId, { outcome, at, reason, reported }] of this.#orders) state.orders[messageId] = [outcome, at, reason ?? null, reported]
    return state
  }

  /** Resolves once every change made so far is in the file (failures were reported already). */
  written(): Promise<void> {
    return this.#writer?.written() ?? Promise.resolve()
  }

  #prune() {
    const cutoff = this.now() - KEEP_HANDLED_MS
    for (const [messageId, { at }] of this.#orders) {
      if (at >= cutoff) break
      this.#orders.delete(messageId)
    }
  }
}
