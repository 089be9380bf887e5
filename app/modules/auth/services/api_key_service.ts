import { inject } from '@adonisjs/core'
import type { Caller, Scope } from '#core/http/access'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { databaseRefusal } from '#core/database/database_refusal'
import { ActivityLog } from '#core/activity/activity_log'
import { dateTimeOf } from '#core/database/utc_date_time'
import type { PageRequest } from '#core/pagination/keyset_page'
import type ApiKey from '#modules/auth/models/api_key'
import { ApiKeyStore } from '#modules/auth/stores/api_key_store'
import { fingerprintOf, newApiKeySecret } from '#modules/auth/services/api_key_secret'
import { normaliseAllowedEntry } from '#modules/auth/services/ip_allow_list'
import { ApiKeyCache, type KnownKey } from '#modules/auth/services/api_key_cache'
import type { PageOf } from '#core/contract/schemas'
import type { ApiKeyResource, apiKeySchema } from '#modules/auth/schemas'

export interface ApiKeyFields {
  name: string
  scope: Scope
  allowedIps?: string[]
  callsPerMinute?: number | null
  callsPerDay?: number | null
}

/** lastUsedAt is written at most this often per key, not on every call. */
const LAST_USED_RESOLUTION_MS = 60_000

/**
 * Creates, changes, rotates and revokes API keys, and recognises a presented secret. Keys are
 * looked up by fingerprint and cached in memory; every change drops the cache entry, so a
 * rotated or revoked secret stops working with the very next call.
 */
@inject()
export class ApiKeyService {
  constructor(
    private clock: Clock,
    private activity: ActivityLog,
    private cache: ApiKeyCache,
    private keys: ApiKeyStore
  ) {}

  async create(fields: ApiKeyFields, by: Caller | null): Promise<{ apiKey: ApiKey; secret: string }> {
    await this.#assertNameFree(fields.name)
    const secret = newApiKeySecret()
    const now = dateTimeOf(this.clock.now())
    const apiKey = await this.keys.add({
      name: fields.name,
      nameKey: fields.name.toLowerCase(),
      scope: fields.scope,
      fingerprint: fingerprintOf(secret),
      lastFour: secret.slice(-4),
      allowedIps: (fields.allowedIps ?? []).map(normaliseAllowedEntry),
      callsPerMinute: fields.callsPerMinute ?? null,
      callsPerDay: fields.callsPerDay ?? null,
      at: now,
    })
    await this.activity.actingFor(by).info('auth', 'apikey.created', `API key "${apiKey.name}" created with scope ${apiKey.scope}`, { apiKeyId: String(apiKey.id) })
    return { apiKey, secret }
  }

  async list(page: PageRequest): Promise<PageOf<typeof apiKeySchema>> {
    const result = await this.keys.page(page)
    return { data: result.data.map((apiKey) => apiKey.toResource()), nextCursor: result.nextCursor }
  }

  async find(id: number): Promise<ApiKey> {
    const apiKey = await this.keys.find(id)
    if (!apiKey) throw ApiError.notFound('API key')
    return apiKey
  }

  async update(id: number, change: Partial<ApiKeyFields>, by: Caller | null): Promise<ApiKey> {
    const apiKey = await this.find(id)
    const renamed = change.name !== undefined && change.name.toLowerCase() !== apiKey.nameKey
    if (renamed) await this.#assertNameFree(change.name!)
    await this.keys.change(apiKey, {
      ...(renamed ? { name: change.name, nameKey: change.name!.toLowerCase() } : {}),
      scope: change.scope,
      allowedIps: change.allowedIps?.map(normaliseAllowedEntry),
      callsPerMinute: change.callsPerMinute,
      callsPerDay: change.callsPerDay,
      updatedAt: dateTimeOf(this.clock.now()),
    })
    this.cache.forget(apiKey.fingerprint, apiKey.id)
    await this.activity.actingFor(by).info('auth', 'apikey.changed', `API key "${apiKey.name}" changed`, { apiKeyId: String(apiKey.id) })
    return apiKey
  }

  /** A new secret; the old one is invalid from this moment. */
  async rotate(id: number, by: Caller | null): Promise<{ apiKey: ApiKey; secret: string }> {
    const apiKey = await this.find(id)
    const previous = apiKey.fingerprint
    const secret = newApiKeySecret()
    await this.keys.change(apiKey, { fingerprint: fingerprintOf(secret), lastFour: secret.slice(-4), updatedAt: dateTimeOf(this.clock.now()) })
    this.cache.forget(previous, apiKey.id)
    await this.activity.actingFor(by).info('auth', 'apikey.rotated', `API key "${apiKey.name}" rotated`, { apiKeyId: String(apiKey.id) })
    return { apiKey, secret }
  }

  async revoke(id: number, by: Caller | null): Promise<void> {
    const apiKey = await this.find(id)
    await this.keys.remove(apiKey)
    this.cache.forget(apiKey.fingerprint, apiKey.id)
    this.cache.lastUsedWritten.delete(apiKey.id)
    await this.activity.actingFor(by).info('auth', 'apikey.revoked', `API key "${apiKey.name}" revoked`, { apiKeyId: String(apiKey.id) })
  }

  /** The key a presented secret belongs to, or null. */
  async recognise(secret: string): Promise<KnownKey | null> {
    const fingerprint = fingerprintOf(secret)
    const cached = this.cache.byFingerprint.get(fingerprint)
    if (cached) return cached
    const row = await this.keys.findByFingerprint(fingerprint)
    if (!row) return null
    const known: KnownKey = {
      id: row.id,
      name: row.name,
      scope: row.scope,
      allowedIps: row.allowedIps,
      callsPerMinute: row.callsPerMinute,
      callsPerDay: row.callsPerDay,
      resource: row.toResource(),
    }
    this.cache.remember(fingerprint, known)
    return known
  }

  /** The key as the API answers it; from memory for a key in use (every change forgets it). */
  async describe(id: number): Promise<ApiKeyResource> {
    const known = this.cache.byId.get(id)
    return known ? { ...known.resource } : (await this.find(id)).toResource()
  }

  /** Records that a key was used; written at most once a minute per key. */
  async markUsed(key: KnownKey): Promise<void> {
    const now = this.clock.nowMs()
    const written = this.cache.lastUsedWritten.get(key.id)
    if (written !== undefined && now - written < LAST_USED_RESOLUTION_MS) return
    this.cache.lastUsedWritten.set(key.id, now)
    const lastUsedAt = new Date(now).toISOString()
    key.resource.lastUsedAt = lastUsedAt
    try {
      await this.keys.recordLastUse(key.id, lastUsedAt)
    } catch (error) {
      // A full disk or another program's lock must not refuse the call (a read goes on); the
      // time is written at a later call.
      if (!databaseRefusal(error)) throw error
      this.cache.lastUsedWritten.delete(key.id)
    }
  }

  async #assertNameFree(name: string) {
    if (await this.keys.nameTaken(name.toLowerCase())) throw new ApiError('NAME_TAKEN', 'Another API key has this name', [{ field: 'name', rule: 'unique', message: 'Another API key has this name' }])
  }
}
