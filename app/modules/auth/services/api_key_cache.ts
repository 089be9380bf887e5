import type { Scope } from '#core/http/access'

/** What a request needs to know about its key, kept in memory between calls. */
export interface KnownKey {
  id: number
  name: string
  scope: Scope
  allowedIps: string[]
  callsPerMinute: number | null
  callsPerDay: number | null
}

/**
 * In-memory state shared by every request (a container singleton): keys recognised so far, by
 * fingerprint, and when each key's lastUsedAt was last written.
 */
export class ApiKeyCache {
  readonly byFingerprint = new Map<string, KnownKey>()
  readonly lastUsedWritten = new Map<number, number>()

  clear() {
    this.byFingerprint.clear()
    this.lastUsedWritten.clear()
  }
}
