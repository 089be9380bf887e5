import type { SmsDeliver } from './sms_deliver.js'

/** How long the parts of a long SMS are waited for, from its first part's arrival: 10 minutes. */
export const REASSEMBLY_TIMEOUT_MS = 10 * 60_000

/** A received SMS made whole, or as whole as it got. */
export interface ReassembledSms {
  /** The sender (every part has the same: it is part of what ties them together). */
  from: SmsDeliver['from']
  /** The parts that arrived, in their order in the message (not in arrival order). */
  parts: SmsDeliver[]
  /** Their texts joined (empty for binary data). */
  text: string
  binary: boolean
  /** Their data joined as hex, for binary data; null otherwise. */
  dataHex: string | null
  /** false when the wait ran out first: `missing` names the parts that never came (1-based). */
  complete: boolean
  missing: number[]
}

interface Pending {
  firstArrival: number
  total: number
  parts: Map<number, SmsDeliver>
}

/**
 * Puts the parts of concatenated SMS back together (TS 23.040 clause 9.2.3.24.1). Parts belong
 * together when they share the sender, the reference (its size too) and the total; they may
 * come in any order, and a part that comes again is ignored. It keeps no timer: the caller
 * asks for the messages whose wait ran out with expire(now), and gives the clock.
 *
 * A part arriving after its message was given out incomplete starts a new wait of its own.
 */
export class Reassembly {
  #pending = new Map<string, Pending>()
  readonly #now: () => number
  readonly #timeoutMs: number

  constructor(options: { now: () => number; timeoutMs?: number }) {
    this.#now = options.now
    this.#timeoutMs = options.timeoutMs ?? REASSEMBLY_TIMEOUT_MS
  }

  /** How many messages wait for parts. */
  get waiting(): number {
    return this.#pending.size
  }

  /** Takes a received PDU: answers the whole message once its last part is in, null while parts are missing. */
  add(sms: SmsDeliver): ReassembledSms | null {
    const concatenation = sms.concatenation
    if (!concatenation || concatenation.total === 1) return joined([sms], true, [])
    const key = [sms.from.kind, sms.from.value, concatenation.referenceBits, concatenation.reference, concatenation.total].join('\u0000')
    let pending = this.#pending.get(key)
    if (!pending) {
      pending = { firstArrival: this.#now(), total: concatenation.total, parts: new Map() }
      this.#pending.set(key, pending)
    }
    if (pending.parts.has(concatenation.sequence)) return null
    pending.parts.set(concatenation.sequence, sms)
    if (pending.parts.size < pending.total) return null
    this.#pending.delete(key)
    return joined(inOrder(pending), true, [])
  }

  /** The messages whose wait ran out by `now`, with the parts that came, marked incomplete. */
  expire(now: number = this.#now()): ReassembledSms[] {
    const expired: ReassembledSms[] = []
    for (const [key, pending] of this.#pending) {
      if (now - pending.firstArrival < this.#timeoutMs) continue
      this.#pending.delete(key)
      const missing: number[] = []
      for (let sequence = 1; sequence <= pending.total; sequence++) if (!pending.parts.has(sequence)) missing.push(sequence)
      expired.push(joined(inOrder(pending), false, missing))
    }
    return expired
  }
}

function inOrder(pending: Pending): SmsDeliver[] {
  return [...pending.parts.entries()].sort(([a], [b]) => a - b).map(([, sms]) => sms)
}

function joined(parts: SmsDeliver[], complete: boolean, missing: number[]): ReassembledSms {
  const binary = parts.some((part) => part.binary)
  return {
    from: parts[0].from,
    parts,
    text: parts.map((part) => part.text).join(''),
    binary,
    dataHex: binary ? parts.map((part) => part.dataHex ?? '').join('') : null,
    complete,
    missing,
  }
}
