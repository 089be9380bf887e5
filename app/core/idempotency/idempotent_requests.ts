import { createHash } from 'node:crypto'
import { inject } from '@adonisjs/core'
import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import { affectedRows } from '#core/database/affected_rows'

/** How long a key answers its first answer again: 24 hours (docs/sending.md, Idempotency). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000
const TABLE = 'idempotency_keys'

/** A claim on an Idempotency-Key: whose, which, and the request it was first used with. */
export interface IdempotencyClaim {
  caller: string
  key: string
  requestHash: string
}

export interface RecordedAnswer {
  status: number
  body: unknown
  replayed: boolean
}

/** Requests in progress per caller and key, so concurrent twins wait for the first (a singleton). */
export class IdempotencyLocks {
  readonly tails = new Map<string, Promise<unknown>>()
}

/** The hash of a request as sent: its JSON with keys in a stable order. */
export function hashRequest(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex')
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(',')}}`
  }
  return JSON.stringify(value ?? null)
}

/**
 * Idempotency (docs/sending.md, Idempotency): the same key and body within 24 hours answers the
 * original answer and does nothing; another body is 409 IDEMPOTENCY_CONFLICT; an error answer does
 * not consume the key; keys belong to their caller. The work records its answer in its own
 * transaction (`record`), so the answer and what it did commit together or not at all.
 *
 * Generic, so core's (docs/modules.md): a caller and its key map to the stored answer of the
 * first request, whatever the request does. Core owns `idempotency_keys`; the code that calls
 * it hands in the work and names its callers.
 */
@inject()
export class IdempotentRequests {
  constructor(
    private clock: Clock,
    private locks: IdempotencyLocks
  ) {}

  async run(claim: IdempotencyClaim | null, work: () => Promise<RecordedAnswer>): Promise<RecordedAnswer> {
    if (!claim) return work()
    const lockName = `${claim.caller}\u0000${claim.key}`
    const previous = this.locks.tails.get(lockName) ?? Promise.resolve()
    const current = previous.then(
      () => this.#runClaimed(claim, work),
      () => this.#runClaimed(claim, work)
    )
    this.locks.tails.set(lockName, current)
    try {
      return await current
    } finally {
      if (this.locks.tails.get(lockName) === current) this.locks.tails.delete(lockName)
    }
  }

  /** Writes the answer of a first request; call inside the work's transaction. */
  async record(claim: IdempotencyClaim, status: number, body: unknown, trx: TransactionClientContract): Promise<void> {
    const now = this.clock.nowMs()
    await trx.table(TABLE).insert({
      caller: claim.caller,
      key: claim.key,
      request_hash: claim.requestHash,
      response_status: status,
      response_body: JSON.stringify(body),
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + IDEMPOTENCY_WINDOW_MS).toISOString(),
    })
  }

  /** Deletes keys past their window; returns how many. */
  async purgeExpired(): Promise<number> {
    const deleted: unknown = await db.from(TABLE).where('expires_at', '<=', this.clock.now().toISOString()).delete()
    return affectedRows(deleted)
  }

  async #runClaimed(claim: IdempotencyClaim, work: () => Promise<RecordedAnswer>): Promise<RecordedAnswer> {
    const row = await db.from(TABLE).where('caller', claim.caller).where('key', claim.key).first()
    if (row && Date.parse(row.expires_at) > this.clock.nowMs()) {
      if (row.request_hash !== claim.requestHash) {
        throw new ApiError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was used with a different request in the last 24 hours')
      }
      return { status: row.response_status, body: JSON.parse(row.response_body), replayed: true }
    }
    if (row) await db.from(TABLE).where('caller', claim.caller).where('key', claim.key).delete()
    return work()
  }
}
