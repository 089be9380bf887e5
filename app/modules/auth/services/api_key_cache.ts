import type { Scope } from '#core/http/access'
import type { ApiKeyResource } from '#modules/auth/schemas'

/** What a request needs to know about its key, kept in memory between calls. */
export interface KnownKey {
  id: number
  name: string
  scope: Scope
  allowedIps: string[]
  callsPerMinute: number | null
  callsPerDay: number | null
  /** The key as the API answers it (GET /auth/me), kept with lastUsedAt as last written. */
  resource: ApiKeyResource
}

/**
 * In-memory state shared by every request (a container singleton): keys recognised so far, by
 * fingerprint and by id, and when each key's lastUsedAt was last written. A key-authenticated
 * call then reads no row.
 */
export class ApiKeyCache {
  readonly byFingerprint = new Map<string, KnownKey>()
  readonly byId = new Map<number, KnownKey>()
  readonly lastUsedWritten = new Map<number, number>()

  remember(fingerprint: string, key: KnownKey) {
    this.byFingerprint.set(fingerprint, key)
    this.byId.set(key.id, key)
  }

  forget(fingerprint: string, id: number) {
    this.byFingerprint.delete(fingerprint)
    this.byId.delete(id)
  }

  clear() {
    this.byFingerprint.clear()
    this.byId.clear()
    this.lastUsedWritten.clear()
  }
}
