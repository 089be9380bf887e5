import db from '@adonisjs/lucid/services/db'
import type { DateTime } from 'luxon'
import type { Scope } from '#core/http/access'
import { toIso } from '#core/database/utc_date_time'
import { keysetPage, type Page, type PageRequest } from '#core/pagination/keyset_page'
import ApiKey from '#modules/auth/models/api_key'

/** A key's columns the API sets, and its secret's fingerprint and last four characters. */
export interface ApiKeyColumns {
  name: string
  /** The name lower-cased, for uniqueness ignoring case. */
  nameKey: string
  scope: Scope
  fingerprint: string
  lastFour: string
  allowedIps: string[]
  callsPerMinute: number | null
  callsPerDay: number | null
}

/**
 * The `api_keys` and `api_key_daily_usage` tables (docs/modules.md, Data access): the ApiKey
 * model for a key's reads and writes, the query builder for the time of its last use, and SQL
 * text for the day's call count, counted and read back in one `INSERT … ON CONFLICT … RETURNING`.
 */
export class ApiKeyStore {
  async add(columns: ApiKeyColumns & { at: DateTime }): Promise<ApiKey> {
    const { at, ...fields } = columns
    return ApiKey.create({ ...fields, createdAt: at, updatedAt: at, lastUsedAt: null })
  }

  /** A page of keys, newest first. */
  async page(request: PageRequest): Promise<Page<ApiKey>> {
    return keysetPage(ApiKey.query(), request, 'created_at', (row) => toIso(row.createdAt))
  }

  async find(id: number): Promise<ApiKey | null> {
    return ApiKey.find(id)
  }

  async findByFingerprint(fingerprint: string): Promise<ApiKey | null> {
    return ApiKey.findBy('fingerprint', fingerprint)
  }

  /** Whether a key has this name, lower-cased. */
  async nameTaken(nameKey: string): Promise<boolean> {
    return Boolean(await ApiKey.findBy('name_key', nameKey))
  }

  /** The columns given; `updatedAt` always. */
  async change(apiKey: ApiKey, columns: Partial<ApiKeyColumns> & { updatedAt: DateTime }): Promise<void> {
    if (columns.name !== undefined) apiKey.name = columns.name
    if (columns.nameKey !== undefined) apiKey.nameKey = columns.nameKey
    if (columns.scope !== undefined) apiKey.scope = columns.scope
    if (columns.fingerprint !== undefined) apiKey.fingerprint = columns.fingerprint
    if (columns.lastFour !== undefined) apiKey.lastFour = columns.lastFour
    if (columns.allowedIps !== undefined) apiKey.allowedIps = columns.allowedIps
    if (columns.callsPerMinute !== undefined) apiKey.callsPerMinute = columns.callsPerMinute
    if (columns.callsPerDay !== undefined) apiKey.callsPerDay = columns.callsPerDay
    apiKey.updatedAt = columns.updatedAt
    await apiKey.save()
  }

  async remove(apiKey: ApiKey): Promise<void> {
    await apiKey.delete()
  }

  async recordLastUse(id: number, at: string): Promise<void> {
    await ApiKey.query().where('id', id).update({ last_used_at: at })
  }

  /** Counts a call of the key on `day` (UTC, YYYY-MM-DD) and answers its calls that day, this one included. */
  async countCall(keyId: number, day: string): Promise<number> {
    const rows = await db.rawQuery(
      `INSERT INTO api_key_daily_usage (api_key_id, day, calls) VALUES (?, ?, 1)
       ON CONFLICT (api_key_id, day) DO UPDATE SET calls = calls + 1 RETURNING calls`,
      [keyId, day]
    )
    return Number(rows[0]?.calls ?? 0)
  }
}
