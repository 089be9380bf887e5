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
  track(messageId: string, references: number[], recipient?: string): void {
    this.forget(messageId)
    const tracked: Tracked = { references: [...new Set(references)], delivered: new Set(), recipient: recipient ?? null }
    this.#messages.set(messageId, tracked)
    for (const reference of tracked.references) this.#byReference.set(reference, messageId)
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
