import { setMaxListeners } from 'node:events'
import type { Database } from '@adonisjs/lucid/database'
import type { Logger } from '@adonisjs/core/logger'
import type { Clock } from '#core/time/clock'
import type { Secrets } from '#core/secrets/secrets'
import type { ActivityLog } from '#core/activity/activity_log'
import emitter from '@adonisjs/core/services/emitter'
import { logSafeError } from '#core/logging/redaction'
import { affectedRows } from '#core/database/affected_rows'
import { GroupCommit, type WrittenBatch } from '#core/group_commit/group_commit'
import { signCall } from '#modules/webhooks/services/call_signature'
import type { CallOutcome, DeliveryClient, OutgoingCall } from '#modules/webhooks/services/delivery_client'
import type { WebhookSubscriptions } from '#modules/webhooks/services/webhook_subscriptions'
import { MAX_ATTEMPTS } from '#modules/webhooks/models/webhook_delivery'
import type { CustomHeader } from '#modules/webhooks/models/webhook'
import { transaction } from '#core/database/transaction'

/** Waits before attempts 2, 3, 4 and 5 (docs/webhooks.md, Attempts, retries and giving up). */
export const RETRY_WAITS_MS = [30_000, 120_000, 600_000, 3_600_000]
/** Given-up deliveries in a row before the webhook is switched off (docs/webhooks.md, Webhook states). */
export const SWITCH_OFF_AFTER = 100

/**
 * Calls in flight at once, per webhook (or rule) and overall: a receiver that never answers
 * holds at most its own share for 10 s while every other one keeps its pace.
 */
export const CONCURRENCY = { perTarget: 8, total: 64 }

export const DROPPED_PAUSED = 'dropped: the webhook was paused'
export const DROPPED_SWITCHED_OFF = 'dropped: the webhook was switched off after repeated failures'

/** A due delivery with what its attempt needs: the webhook's URL, headers and secret as of now. */
interface DueDelivery {
  id: number
  target_key: string
  delivery_id: string
  webhook_id: number | null
  rule_url: string | null
  rule_secret_sealed: string | null
  event: string
  body: string
  attempts: number
  url: string | null
  method: string | null
  headers: string | null
  secret_sealed: string | null
  active: number | null
}

interface PendingOutcome {
  delivery: DueDelivery
  outcome: CallOutcome
  at: Date
}

/** Outcomes per statement: 9 values each, far below SQLite's bound-parameter limit. */
const OUTCOMES_PER_STATEMENT = 200
/** Outcomes stored by one transaction at most. */
const OUTCOMES_PER_BATCH = 2000

/**
 * The part of the delivery engine that sends: each pass starts the due deliveries oldest first,
 * as far as the concurrency budget allows, and says when the next one is due. Attempts run on
 * their own; each records its outcome (retry time, success, given up) and wakes the pass again.
 * Rows stay `pending` while in flight, so a restart simply sends them again with the same
 * X-Delivery-Id (receivers ignore a repeat: docs/webhooks.md, Verifying a call).
 */
export class DeliveryWorker {
  readonly #inFlight = new Map<number, { targetKey: string; attempt: Promise<void> }>()
  readonly #perTarget = new Map<string, number>()
  /** Aborted when the gateway stops: calls in flight are abandoned, their rows stay pending. */
  #stopping = new AbortController()
  /** Outcomes that arrive together are stored together (one statement for the rows, one for the counters). */
  readonly #outcomes: GroupCommit<PendingOutcome, void>

  constructor(
    private deps: {
      db: Database
      clock: Clock
      secrets: Secrets
      client: DeliveryClient
      activity: ActivityLog
      subscriptions: WebhookSubscriptions
      logger: Logger
      /** Makes the delivery job due (now, or at a given time). */
      wake: (at?: Date) => void
    }
  ) {
    // Every call in flight (up to CONCURRENCY.total) listens to the one stop signal; Node warns
    // past 10 listeners as if they leaked, and they do not (each is removed when its call ends).
    setMaxListeners(CONCURRENCY.total + 8, this.#stopping.signal)
    this.#outcomes = new GroupCommit<PendingOutcome, void>({
      write: (batch) => this.#write(batch),
      maxBatchWeight: OUTCOMES_PER_BATCH,
      onAfterAnswersError: (error) => this.deps.logger.error({ err: logSafeError(error) }, 'could not count given-up webhook deliveries'),
    })
  }

  get inFlight(): number {
    return this.#inFlight.size
  }

  /** Resolves once every attempt started so far has recorded its outcome, given-up counts included. */
  async settled(): Promise<void> {
    while (this.#inFlight.size) await Promise.all([...this.#inFlight.values()].map((entry) => entry.attempt))
    await this.#outcomes.idle()
  }

  /**
   * Abandons the calls in flight without recording them: they stay pending and leave again,
   * with the same X-Delivery-Id, when the gateway starts.
   */
  async stop(): Promise<void> {
    this.#stopping.abort()
    await this.settled()
    this.deps.client.close()
  }

  async pass(now: Date): Promise<Date | null> {
    if (this.#stopping.signal.aborted) return null
    const nowIso = now.toISOString()
    for (;;) {
      const free = CONCURRENCY.total - this.#inFlight.size
      if (free <= 0) break
      const saturated = [...this.#perTarget].filter(([, count]) => count >= CONCURRENCY.perTarget).map(([key]) => key)
      const query = this.deps.db
        .from('webhook_deliveries as d')
        .leftJoin('webhooks as w', 'w.id', 'd.webhook_id')
        .where('d.status', 'pending')
        .where('d.due_at', '<=', nowIso)
        .orderBy('d.due_at')
        .orderBy('d.id')
        .limit(free + CONCURRENCY.perTarget)
        .select(
          'd.id',
          'd.target_key',
          'd.delivery_id',
          'd.webhook_id',
          'd.rule_url',
          'd.rule_secret_sealed',
          'd.event',
          'd.body',
          'd.attempts',
          'w.url',
          'w.method',
          'w.headers',
          'w.secret_sealed',
          'w.active'
        )
      if (this.#inFlight.size) query.whereNotIn('d.id', [...this.#inFlight.keys()])
      if (saturated.length) query.whereNotIn('d.target_key', saturated)
      const due: DueDelivery[] = await query
      let started = 0
      for (const row of due) {
        if (this.#inFlight.size >= CONCURRENCY.total) break
        if ((this.#perTarget.get(row.target_key) ?? 0) >= CONCURRENCY.perTarget) continue
        this.#start(row)
        started++
      }
      // Rows skipped because their target filled up may hide others behind them: look again.
      if (!started || due.length < free + CONCURRENCY.perTarget) break
    }
    const next = await this.deps.db
      .from('webhook_deliveries')
      .where('status', 'pending')
      .where('due_at', '>', nowIso)
      .min('due_at as dueAt')
      .first()
    return next?.dueAt ? new Date(next.dueAt) : null
  }

  /**
   * Marks a webhook's waiting deliveries dropped (paused or switched off; docs/webhooks.md, Webhook
   * states). Those in flight finish their attempt and are dropped then if it fails.
   */
  async dropWaiting(webhookId: number, reason: string): Promise<number> {
    const now = this.deps.clock.now().toISOString()
    const query = this.deps.db
      .from('webhook_deliveries')
      .where('webhook_id', webhookId)
      .where('status', 'pending')
    const inFlight = [...this.#inFlight.keys()]
    if (inFlight.length) query.whereNotIn('id', inFlight)
    const dropped = affectedRows(await query.update({ status: 'failed', due_at: null, error: reason, completed_at: now, updated_at: now }))
    if (dropped) this.#announce([], [webhookId])
    return dropped
  }

  /** One live announcement per stored batch (listeners/live_webhooks.ts), not one per delivery. */
  #announce(deliveryIds: number[], webhookIds: Array<number | null>) {
    const payload = {
      deliveryIds: deliveryIds.map(String),
      webhookIds: [...new Set(webhookIds.filter((id): id is number => id !== null).map(String))],
    }
    emitter.emit('webhooks:deliveries_changed', payload).catch((error) => {
      this.deps.logger.warn({ err: logSafeError(error) }, 'could not announce webhook delivery outcomes')
    })
  }

  #start(row: DueDelivery) {
    this.#perTarget.set(row.target_key, (this.#perTarget.get(row.target_key) ?? 0) + 1)
    const attempt = this.#attempt(row)
      .catch((error) => this.deps.logger.error({ err: logSafeError(error), delivery: row.id }, 'webhook attempt failed to run'))
      .finally(() => {
        this.#inFlight.delete(row.id)
        const left = (this.#perTarget.get(row.target_key) ?? 1) - 1
        if (left > 0) this.#perTarget.set(row.target_key, left)
        else this.#perTarget.delete(row.target_key)
        this.deps.wake()
      })
    this.#inFlight.set(row.id, { targetKey: row.target_key, attempt })
  }

  async #attempt(row: DueDelivery): Promise<void> {
    const { clock, secrets, client } = this.deps
    const isRuleCall = row.webhook_id === null
    if (!isRuleCall && !row.active) {
      // Deleted or paused since it was recorded.
      if (row.url !== null) await this.dropWaiting(row.webhook_id!, DROPPED_PAUSED)
      return
    }

    // The webhook's current URL, headers and secret: a secret changed by PATCH applies from the
    // next call, retries included (docs/webhooks.md, Subscribing).
    const secret = secrets.reveal((isRuleCall ? row.rule_secret_sealed : row.secret_sealed)!)
    let outcome: CallOutcome
    if (!secret.readable) {
      outcome = { ok: false, httpStatus: null, answer: null, error: `secret unreadable: ${secret.reason}`, durationMs: 0 }
    } else {
      const timestamp = Math.floor(clock.nowMs() / 1000)
      const custom: CustomHeader[] = isRuleCall ? [] : JSON.parse(row.headers!)
      outcome = await client.call(
        {
          url: (isRuleCall ? row.rule_url : row.url)!,
          method: (isRuleCall ? 'POST' : row.method) as OutgoingCall['method'],
          headers: [
            ['content-type', 'application/json; charset=utf-8'],
            ['x-webhook-event', row.event],
            ['x-delivery-id', row.delivery_id],
            ['x-timestamp', String(timestamp)],
            ['x-signature', signCall(secret.value, timestamp, row.delivery_id, row.body)],
            ...custom.map((header): [string, string] => [header.name, header.value]),
          ],
          body: row.body,
        },
        this.#stopping.signal
      )
    }
    if (this.#stopping.signal.aborted) return
    await this.#outcomes.add({ delivery: row, outcome, at: clock.now() })
  }

  /**
   * Stores a batch of outcomes. Counting given-up deliveries comes after the answers, once: a
   * batch written again one by one (after a fault) must not count them twice.
   */
  async #write(batch: PendingOutcome[]): Promise<WrittenBatch<void>> {
    const { db } = this.deps
    const failedWebhooks = [...new Set(batch.filter((entry) => !entry.outcome.ok && entry.delivery.webhook_id !== null).map((entry) => entry.delivery.webhook_id!))]
    const active = new Set<number>()
    if (failedWebhooks.length) {
      for (const row of await db.from('webhooks').whereIn('id', failedWebhooks).where('active', 1).select('id')) active.add(row.id)
    }

    const givenUp: number[] = []
    const rows = batch.map(({ delivery, outcome, at }) => {
      const attempts = delivery.attempts + 1
      const base = { id: delivery.id, attempts, httpStatus: outcome.httpStatus, durationMs: outcome.durationMs, answer: outcome.answer || null, error: outcome.error }
      const atIso = at.toISOString()
      if (outcome.ok) return { ...base, status: 'success', dueAt: null, completedAt: atIso }
      const webhookActive = delivery.webhook_id === null || active.has(delivery.webhook_id)
      if (!webhookActive) return { ...base, status: 'failed', dueAt: null, completedAt: atIso, error: outcome.error ?? DROPPED_PAUSED }
      if (attempts < MAX_ATTEMPTS) {
        const dueAt = new Date(at.getTime() + RETRY_WAITS_MS[attempts - 1])
        this.deps.wake(dueAt)
        return { ...base, status: 'pending', dueAt: dueAt.toISOString(), completedAt: null }
      }
      if (delivery.webhook_id !== null) givenUp.push(delivery.webhook_id)
      return { ...base, status: 'failed', dueAt: null, completedAt: atIso }
    })

    const now = this.deps.clock.now().toISOString()
    const succeeded = [...new Set(batch.filter((entry) => entry.outcome.ok && entry.delivery.webhook_id !== null).map((entry) => entry.delivery.webhook_id!))]
    await transaction(async (trx) => {
      for (let start = 0; start < rows.length; start += OUTCOMES_PER_STATEMENT) {
        const chunk = rows.slice(start, start + OUTCOMES_PER_STATEMENT)
        await trx.rawQuery(
          `WITH outcome(id, status, attempts, due_at, http_status, duration_ms, answer, error, completed_at) AS (VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')})
           UPDATE webhook_deliveries SET status = outcome.status, attempts = outcome.attempts, due_at = outcome.due_at,
             http_status = outcome.http_status, duration_ms = outcome.duration_ms, answer = outcome.answer, error = outcome.error,
             completed_at = outcome.completed_at, updated_at = ?
           FROM outcome
           WHERE webhook_deliveries.id = outcome.id AND webhook_deliveries.status = 'pending'`,
          [
            ...chunk.flatMap((row): any[] => [row.id, row.status, row.attempts, row.dueAt, row.httpStatus, row.durationMs, row.answer, row.error, row.completedAt]),
            now,
          ]
        )
      }
      // A success resets the failure counter to 0 (docs/webhooks.md, Webhook states).
      if (succeeded.length) await trx.from('webhooks').whereIn('id', succeeded).where('consecutive_failures', '>', 0).update({ consecutive_failures: 0 })
    })
    this.#announce(
      batch.map((entry) => entry.delivery.id),
      batch.map((entry) => entry.delivery.webhook_id)
    )
    return {
      results: batch.map(() => undefined),
      afterAnswers: async () => {
        for (const webhookId of givenUp) await this.#countGivenUp(webhookId)
      },
    }
  }

  /**
   * +1 per given-up delivery; at 100 in a row the webhook is switched off (docs/webhooks.md,
   * Webhook states).
   */
  async #countGivenUp(webhookId: number) {
    const { db, clock } = this.deps
    await db.from('webhooks').where('id', webhookId).increment('consecutive_failures', 1)
    const webhook = await db.from('webhooks').where('id', webhookId).select('name', 'active', 'consecutive_failures').first()
    if (!webhook || !webhook.active || webhook.consecutive_failures < SWITCH_OFF_AFTER) return
    const now = clock.now().toISOString()
    const switched = await db
      .from('webhooks')
      .where('id', webhookId)
      .where('active', 1)
      .update({ active: 0, disabled_at: now, updated_at: now })
    if (!affectedRows(switched)) return
    this.deps.subscriptions.invalidate()
    const dropped = await this.dropWaiting(webhookId, DROPPED_SWITCHED_OFF)
    // The webhook's own state changed too (Disabled after failures), dropped deliveries or not.
    if (!dropped) this.#announce([], [webhookId])
    await this.deps.activity.warning(
      'webhooks',
      'webhook.disabled',
      `Webhook "${webhook.name}" was switched off after ${webhook.consecutive_failures} deliveries in a row were given up`,
      { webhookId: String(webhookId), consecutiveFailures: webhook.consecutive_failures, droppedDeliveries: dropped }
    )
  }
}
