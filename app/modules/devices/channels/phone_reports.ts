/**
 * What the gateway offers every phone channel back: the one inlet for what devices report
 * (docs/phone-channels.md). Each report is stored before it is announced (events, webhooks),
 * and a report repeated after a reconnect changes nothing twice, so a channel may hand the same
 * report again whenever it is not sure it was stored.
 *
 * Every report answers once it is taken in (`Taken`), in the order the channel hands them for
 * one device; `stored` resolves once what it says is stored (the channel may then tell the phone
 * it may forget it), and rejects when it could not be (the phone should say it again later).
 * Reports about orders (accepted, sent, delivered, failed) are stored together with other
 * devices' reports, a batch at a time: hand the next report without waiting for `stored`.
 * Every report also proves the device alive, as `heartbeat` does.
 */
export interface PhoneReports {
  /** The device can be given orders now: it is online, and orders it never accepted are sent again. */
  connected(deviceId: number): Promise<void>
  /** The device can no longer be given orders (its connection closed): it is offline. */
  disconnected(deviceId: number): Promise<void>

  /** The device is alive (and nothing else). */
  heartbeat(deviceId: number): Promise<Taken>
  /** The version of the software on the phone (cut to 40 characters). */
  appVersion(deviceId: number, version: string): Promise<Taken>
  /** Battery and signal, when the phone knows them; a value left out is kept as it was. */
  status(deviceId: number, status: PhoneStatus): Promise<Taken>

  /**
   * The phone took the order: the message is `dispatched`. Each report about an order may name
   * the hand-out it is about (`orderedAt`, as the order carried it): a report about an earlier
   * hand-out of the message (a phone repeating what it said about a failed attempt) changes
   * nothing. Without it, the report is about the message's current hand-out to this device.
   */
  accepted(deviceId: number, messageId: number, orderedAt?: Date): Promise<Taken>
  /** The phone sent the SMS. */
  sent(deviceId: number, messageId: number, orderedAt?: Date): Promise<Taken>
  /** A delivery receipt came (counts as `sent` too when that report never came). */
  delivered(deviceId: number, messageId: number, orderedAt?: Date): Promise<Taken>
  /**
   * The attempt failed, with a short error code (`NO_SIGNAL`, `RADIO_OFF`, `GENERIC_FAILURE`;
   * letters, digits and `_`, 40 at most, anything else is replaced). The message is queued
   * again or fails after its last attempt; `OUTCOME_UNKNOWN` (the phone cannot tell whether the
   * SMS left) fails it at once, since another attempt could send it twice.
   */
  failed(deviceId: number, messageId: number, errorCode: string, orderedAt?: Date): Promise<Taken>

  /** An SMS arrived on the phone: stored once per `ref` and device. */
  inbound(deviceId: number, sms: InboundSms): Promise<Taken>
}

/** A report taken in; `stored` resolves once what it says is stored. */
export interface Taken {
  stored: Promise<void>
}

export interface PhoneStatus {
  /** Percent, 0-100 (rounded and clamped). */
  batteryLevel?: number
  charging?: boolean
  /** Bars, 0-4 (rounded and clamped). */
  signal?: number
}

export interface InboundSms {
  /** The phone's own id for this SMS: unique per device, never reused by it (100 characters kept). */
  ref: string
  /**
   * The sender as the phone reported it: E.164, a local number dialled with its trunk 0
   * (completed with Settings > Reception's prefix), or a short code / alphanumeric sender.
   */
  from: string
  body: string
  /** When the phone received it; null or in the future: now. */
  receivedAt: Date | null
  /** 0 or 1; anything else is taken as 0. */
  simSlot?: number
}
