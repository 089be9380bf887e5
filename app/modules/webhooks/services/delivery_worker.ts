import type { Database } from '@adonisjs/lucid/database'
import type { Logger } from '@adonisjs/core/logger'
import type { Clock } from '#core/time/clock'
import type { Secrets } from '#core/secrets/secrets'
import type { ActivityLog } from '#core/activity/activity_log'
import { logSafeError } from '#core/logging/redaction'
import { affectedRows } from '#core/database/affected_rows'
import { signCall } from '#modules/webhooks/services/call_signature'
import type { CallOutcome, DeliveryClient } from '#modules/webhooks/services/delivery_client'
import type { WebhookSubscriptions } from '#modules/webhooks/services/webhook_subscriptions'
import { MAX_ATTEMPTS } from '#modules/webhooks/models/webhook_delivery'
import type { CustomHeader } from '#modules/webhooks/models/webhook'

/** Spec, Limits > Webhooks: waits before attempts 2, 3, 4 and 5. */
export const RETRY_WAITS_MS = [30_000, 120_000, 600_000, 3_600_000]
/** Spec, Webhook state: given-up deliveries in a row before the webhook is switched off. */
export const SWITCH_OFF_AFTER = 100

/**
 * Calls in flight at once, per webhook (or rule) and overall: a receiver that never answers
 * holds at most its own share for 10 s while every other one keeps its pace.
 */
export const CONCURRENCY = { perTarget: 8, total: 64 }

export const DROPPED_PAUSED = 'dropped: the webhook was paused'
export const DROPPED_SWITCHED_OFF = 'dropped: the webhook was switched off after repeated failures'

interface DueDelivery {
  id: number
  target_key: string
}

/**
 * The part of the delivery engine that sends: each pass starts the due deliveries oldest first,
 * as far as the concurrency budget allows, and says when the next one is due. Attempts run on
 * their own; each records its outcome (retry time, success, given up) and wakes the pass again.
 * Rows stay `pending` while in flight, so a restart simply sends them again with the same
 * X-Delivery-Id (receivers ignore a repeat, spec).
 */
export class DeliveryWorker {
  readonly #inFlight = new Map<number, { targetKey: string; attempt: Promise<void> }>()
  readonly #perTarget = new Map<string, number>()
  /** Aborted when the gateway stops: calls in flight are abandoned, their rows stay pending. */
  #stopping = new AbortController()

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
  ) {}

  get inFlight(): number {
    return this.#inFlight.size
  }

  /** Whether an attempt of this delivery is under way. */
  isInFlight(deliveryId: number): boolean {
    return this.#inFlight.has(deliveryId)
  }

  /** Resolves once every attempt started so far has recorded its outcome. */
  async settled(): Promise<void> {
    while (this.#inFlight.size) await Promise.all([...this.#inFlight.values()].map((entry) => entry.attempt))
  }

  /**
   * Abandons the calls in flight without recording them: they stay pending and leave again,
   * with the same X-Delivery-Id, when the gateway starts.
   */
  async stop(): Promise<void> {
    this.#stopping.abort()
    await this.settled()
  }

  async pass(now: Date): Promise<Date | null> {
    if (this.#stopping.signal.aborted) return null
    const nowIso = now.toISOString()
    for (;;) {
      const free = CONCURRENCY.total - this.#inFlight.size
      if (free <= 0) break
      const saturated = [...this.#perTarget].filter(([, count]) => count >= CONCURRENCY.perTarget).map(([key]) => key)
      const query = this.deps.db
        .from('webhook_deliveries')
        .where('status', 'pending')
        .where('due_at', '<=', nowIso)
        .orderBy('due_at')
        .orderBy('id')
        .limit(free + CONCURRENCY.perTarget)
        .select('id', 'target_key')
      if (this.#inFlight.size) query.whereNotIn('id', [...this.#inFlight.keys()])
      if (saturated.length) query.whereNotIn('target_key', saturated)
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
   * Marks a webhook's waiting deliveries dropped (paused or switched off; spec, Webhook state).
   * Those in flight finish their attempt and are dropped then if it fails.
   */
  async dropWaiting(webhookId: number, reason: string): Promise<number> {
    const now = this.deps.clock.now().toISOString()
    const query = this.deps.db
      .from('webhook_deliveries')
      .where('webhook_id', webhookId)
      .where('status', 'pending')
    const inFlight = [...this.#inFlight.keys()]
    if (inFlight.length) query.whereNotIn('id', inFlight)
    return affectedRows(await query.update({ status: 'failed', due_at: null, error: reason, completed_at: now, updated_at: now }))
  }

  #start(row: DueDelivery) {
    this.#perTarget.set(row.target_key, (this.#perTarget.get(row.target_key) ?? 0) + 1)
    const attempt = this.#attempt(row.id)
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

  async #attempt(id: number): Promise<void> {
    const { db, clock, secrets, client } = this.deps
    const row = await db
      .from('webhook_deliveries as d')
      .leftJoin('webhooks as w', 'w.id', 'd.webhook_id')
      .where('d.id', id)
      .select(
        'd.id',
        'd.delivery_id',
        'd.webhook_id',
        'd.rule_url',
        'd.rule_secret_sealed',
        'd.event',
        'd.body',
        'd.status',
        'd.attempts',
        'w.url',
        'w.method',
        'w.headers',
        'w.secret_sealed',
        'w.active'
      )
      .first()
    if (!row || row.status !== 'pending') return
    const isRuleCall = row.webhook_id === null
    if (!isRuleCall && !row.active) {
      await this.dropWaiting(row.webhook_id, DROPPED_PAUSED)
      return
    }

    // The webhook's current URL, headers and secret: a secret changed by PATCH applies from the
    // next call, retries included (spec, Webhooks endpoints).
    const sealed: string = isRuleCall ? row.rule_secret_sealed : row.secret_sealed
    const secret = secrets.reveal(sealed)
    let outcome: CallOutcome
    if (!secret.readable) {
      outcome = { ok: false, httpStatus: null, answer: null, error: `secret unreadable: ${secret.reason}`, durationMs: 0 }
    } else {
      const timestamp = Math.floor(clock.nowMs() / 1000)
      const custom: CustomHeader[] = isRuleCall ? [] : JSON.parse(row.headers)
      outcome = await client.call({
        url: isRuleCall ? row.rule_url : row.url,
        method: isRuleCall ? 'POST' : row.method,
        headers: [
          ['content-type', 'application/json; charset=utf-8'],
          ['x-webhook-event', row.event],
          ['x-delivery-id', row.delivery_id],
          ['x-timestamp', String(timestamp)],
          ['x-signature', signCall(secret.value, timestamp, row.delivery_id, row.body)],
          ...custom.map((header): [string, string] => [header.name, header.value]),
        ],
        body: row.body,
      }, this.#stopping.signal)
    }
    if (this.#stopping.signal.aborted) return
    await this.#recordOutcome(row, outcome)
  }

  async #recordOutcome(row: { id: number; webhook_id: number | null; attempts: number }, outcome: CallOutcome) {
    const { db, clock } = this.deps
    const now = clock.now()
    const attempts = row.attempts + 1
    const common = {
      attempts,
      http_status: outcome.httpStatus,
      duration_ms: outcome.durationMs,
      answer: outcome.answer || null,
      error: outcome.error,
      updated_at: now.toISOString(),
    }
    const pending = db.from('webhook_deliveries').where('id', row.id).where('status', 'pending')

    if (outcome.ok) {
      await pending.update({ ...common, status: 'success', due_at: null, completed_at: now.toISOString() })
      if (row.webhook_id !== null) {
        await db.from('webhooks').where('id', row.webhook_id).where('consecutive_failures', '>', 0).update({ consecutive_failures: 0 })
      }
      return
    }

    const webhookActive =
      row.webhook_id === null || Boolean((await db.from('webhooks').where('id', row.webhook_id).select('active').first())?.active)
    if (attempts < MAX_ATTEMPTS && webhookActive) {
      const dueAt = new Date(now.getTime() + RETRY_WAITS_MS[attempts - 1])
      await pending.update({ ...common, status: 'pending', due_at: dueAt.toISOString() })
      this.deps.wake(dueAt)
      return
    }
    if (!webhookActive) {
      await pending.update({ ...common, status: 'failed', due_at: null, completed_at: now.toISOString(), error: outcome.error ?? DROPPED_PAUSED })
      return
    }
    await pending.update({ ...common, status: 'failed', due_at: null, completed_at: now.toISOString() })
    if (row.webhook_id !== null) await this.#countGivenUp(row.webhook_id)
  }

  /** Spec, Webhook state: +1 per given-up delivery; at 100 in a row the webhook is switched off. */
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
    await this.deps.activity.warning(
      'webhooks',
      `Webhook "${webhook.name}" was switched off after ${webhook.consecutive_failures} deliveries in a row were given up`,
      { webhookId: String(webhookId), consecutiveFailures: webhook.consecutive_failures, droppedDeliveries: dropped }
    )
  }
}
