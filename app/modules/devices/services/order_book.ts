/** A phone's failure reason saying it does not know whether the SMS left. */
export const OUTCOME_UNKNOWN = 'OUTCOME_UNKNOWN'

/**
 * What a phone said about one of its orders (docs/phone-channels.md, Reports); `orderedAt`, when
 * the phone names the hand-out it reports on, must be the message's current one.
 */
export type OrderReport =
  | { kind: 'accepted' | 'sent' | 'delivered'; deviceId: number; messageId: number; at: Date; orderedAt?: Date }
  | { kind: 'failed'; deviceId: number; messageId: number; at: Date; errorCode: string; maxAttempts: number; orderedAt?: Date }

/** An SMS a phone received, its sender normalised (E.164 where it can be). */
export interface InboundReport {
  deviceId: number
  /** The phone's own reference: a repeated report stores the SMS once. */
  ref: string
  phone: string
  body: string
  simSlot: number
  receivedAt: Date
  at: Date
}

/**
 * Whoever keeps the messages phones carry (the messages module binds it in the container). The
 * devices module knows phones, their SIMs and their connections, never messages: what a phone
 * reports about an order, an SMS it received, and a phone coming, going away or being unpaired
 * are handed here, and the owner decides what becomes of its messages (docs/phone-channels.md).
 */
export abstract class OrderBook {
  /** Resolves once what the report says is stored (the phone may then forget it). */
  abstract record(report: OrderReport): Promise<void>

  /** Stores a received SMS, once per phone reference. */
  abstract storeInbound(sms: InboundReport): Promise<void>

  /** The phone can take orders again: those it was given and never accepted go to it again. */
  abstract phoneConnected(deviceId: number): Promise<void>

  /**
   * The phone has been silent since `since` (5 minutes): orders it was given up to then and
   * never accepted go to another phone. Answers the ids of the orders taken back now.
   */
  abstract phoneAway(deviceId: number, since: Date): Promise<number[]>

  /** The phone was unpaired, its last reports stored: nothing it holds will ever be reported. */
  abstract phoneUnpaired(deviceId: number): Promise<void>
}
