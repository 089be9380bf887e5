import type { DeliveryStatus } from './status_report.js'

/** Where a sent message stands after a status report about one of its parts. */
export interface TrackedDelivery {
  messageId: string
  /** `delivered` once every part's report said so; `failed` at the first part that failed for good; `pending` until then. */
  outcome: 'delivered' | 'failed' | 'pending'
  /** The failing part's code when failed, `DELIVERED` when delivered, the report's own code while pending. */
  code: string
  /** Parts reported delivered so far, of `parts`. */
  delivered: number
  parts: number
}

interface Tracked {
  references: number[]
  delivered: Set<number>
  recipient: string | null
  /** When it was sent (epoch ms). */
  at: number
}

/**
 * A message waiting for its reports, as the agent's state file keeps it so a restart still
 * matches them. The recipient is kept to its last nine digits, all a report is compared by.
 */
export interface TrackedSnapshot {
  messageId: string
  references: number[]
  delivered: number[]
  recipient: string | null
  at: number
}

/**
 * Whether a report's recipient is the number a message went to. The service centre may write
 * it in another form (national with its trunk 0, international with its country code), so the
 * last nine digits are compared, or all of them in a shorter number.
 */
export function sameRecipient(a: string, b: string): boolean {
  const digitsA = a.replace(/\D/g, '')
  const digitsB = b.replace(/\D/g, '')
  const compared = Math.min(9, digitsA.length, digitsB.length)
  return compared > 0 && digitsA.slice(-compared) === digitsB.slice(-compared)
}

/**
 * Status reports to messages: each part of a long SMS is its own SMS-SUBMIT with its own TP-MR
 * and gets its own report. A message is delivered once every part's report says delivered; one
 * part failed for good fails it; a temporary error changes nothing. After a final outcome the
 * message is forgotten, so later reports about it answer null.
 *
 * TP-MR is one octet: the modem's 256 values come round again. A reference given to a new
 * message is taken from an older one still waiting, which then cannot finish by it:
 * forget(messageId) ends such a wait (say, once the validity period is over).
 */
export class DeliveryTracker {
  #byReference = new Map<number, string>()
  #messages = new Map<string, Tracked>()

  /**
   * The TP-MRs the modem answered for a message's parts, in any order, and the number it went
   * to: given, a report must name the same recipient to count (a reference come round again
   * from another modem's message, or a report about an SMS sent before a restart, does not).
   */
  track(messageId: string, references: number[], recipient?: string, at = Date.now()): void {
    this.forget(messageId)
    const tracked: Tracked = { references: [...new Set(references)], delivered: new Set(), recipient: recipient ?? null, at }
    this.#messages.set(messageId, tracked)
    const overtaken = new Set<string>()
    for (const reference of tracked.references) {
      const older = this.#byReference.get(reference)
      if (older !== undefined && older !== messageId) overtaken.add(older)
      this.#byReference.set(reference, messageId)
    }
    // A message none of whose references is its own any more can never hear a report: gone,
    // which also bounds what is kept (and written to the state file) to 256 messages.
    for (const older of overtaken) {
      if (!this.#messages.get(older)!.references.some((reference) => this.#byReference.get(reference) === older)) this.#messages.delete(older)
    }
  }

  /** What waits, for the state file. */
  snapshot(): TrackedSnapshot[] {
    return [...this.#messages].map(([messageId, tracked]) => ({
      messageId,
      references: tracked.references,
      delivered: [...tracked.delivered],
      recipient: tracked.recipient === null ? null : tracked.recipient.replace(/\D/g, '').slice(-9),
      at: tracked.at,
    }))
  }

  /** Takes back what a snapshot kept, oldest first, so a reference used twice goes to the newer message. */
  restore(snapshot: TrackedSnapshot[]): void {
    for (const entry of [...snapshot].sort((a, b) => a.at - b.at)) {
      this.track(entry.messageId, entry.references, entry.recipient ?? undefined, entry.at)
      const tracked = this.#messages.get(entry.messageId)!
      for (const reference of entry.delivered) if (tracked.references.includes(reference)) tracked.delivered.add(reference)
    }
  }

  /** Stops waiting for messages sent before `at` (epoch ms): their reports can no longer come. */
  forgetSentBefore(at: number): void {
    for (const [messageId, tracked] of this.#messages) if (tracked.at < at) this.forget(messageId)
  }

  /** A status report's TP-MR, status and recipient: where its message now stands, or null for a reference no message waits on. */
  report(reference: number, status: DeliveryStatus, recipient?: string): TrackedDelivery | null {
    const messageId = this.#byReference.get(reference)
    if (messageId === undefined) return null
    const tracked = this.#messages.get(messageId)!
    if (tracked.recipient !== null && recipient !== undefined && !sameRecipient(tracked.recipient, recipient)) return null
    const parts = tracked.references.length
    if (status.outcome === 'failed') {
      this.forget(messageId)
      return { messageId, outcome: 'failed', code: status.code, delivered: tracked.delivered.size, parts }
    }
    if (status.outcome === 'pending') return { messageId, outcome: 'pending', code: status.code, delivered: tracked.delivered.size, parts }
    tracked.delivered.add(reference)
    if (tracked.delivered.size < parts) return { messageId, outcome: 'pending', code: status.code, delivered: tracked.delivered.size, parts }
    this.forget(messageId)
    return { messageId, outcome: 'delivered', code: 'DELIVERED', delivered: parts, parts }
  }

  /** Stops waiting for a message's reports. */
  forget(messageId: string): void {
    const tracked = this.#messages.get(messageId)
    if (!tracked) return
    this.#messages.delete(messageId)
    for (const reference of tracked.references) {
      if (this.#byReference.get(reference) === messageId) this.#byReference.delete(reference)
    }
  }

  /** How many messages wait for reports. */
  get waiting(): number {
    return this.#messages.size
  }
}
