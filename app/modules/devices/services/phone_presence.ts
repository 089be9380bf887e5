/** When each phone last said anything, and when that was last written (a container singleton). */
export class PhonePresence {
  readonly lastFrameAt = new Map<number, number>()
  readonly lastSeenWritten = new Map<number, number>()
}

/**
 * A phone silent for 5 minutes is offline (docs/device-protocol.md): long enough for a phone
 * that heartbeats every minute to miss a few, short enough to move its orders to another phone.
 */
export const SILENCE_MS = 5 * 60_000
/** last_seen_at is written at most this often per phone. */
export const LAST_SEEN_RESOLUTION_MS = 30_000
