import { setMaxListeners } from 'node:events'
import type { Logger } from '@adonisjs/core/logger'
import type { Clock } from '#core/time/clock'
import type { Secrets } from '#core/secrets/secrets'
import type { ActivityLog } from '#core/activity/activity_log'
import emitter from '@adonisjs/core/services/emitter'
import { logSafeError } from '#core/logging/redaction'
import { GroupCommit, type WrittenBatch } from '#core/group_commit/group_commit'
import { signCall } from '#modules/webhooks/services/call_signature'
import type { CallOutcome, DeliveryClient, OutgoingCall } from '#modules/webhooks/services/delivery_client'
import type { WebhookSubscriptions } from '#modules/webhooks/services/webhook_subscriptions'
import { MAX_ATTEMPTS } from '#modules/webhooks/schemas'
import type { CustomHeader } from '#modules/webhooks/models/webhook'
import type { DeliveryWake } from '#modules/webhooks/jobs/delivery_job'
import type { DeliveryStore, DueDelivery, StoredOutcome } from '#modules/webhooks/stores/delivery_store'
import type { WebhookStore } from '#modules/webhooks/stores/webhook_store'
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
export const DROPPED_RULE_GONE = 'dropped: the rule was deleted or calls no URL any more'

interface PendingOutcome {
  delivery: DueDelivery
  outcome: CallOutcome
  at: Date
}

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
    private clock: Clock,
    private secrets: Secrets,
    private client: DeliveryClient,
    private activity: ActivityLog,
    private subscriptions: WebhookSubscriptions,
    private logger: Logger,
    private wakeUp: DeliveryWake,
    private deliveries: DeliveryStore,
    private webhooks: WebhookStore
  ) {
    // Every call in flight (up to CONCURRENCY.total) listens to the one stop signal; Node warns
    // past 10 listeners as if they leaked, and they do not (each is removed when its call ends).
    setMaxListeners(CONCURRENCY.total + 8, this.#stopping.signal)
    this.#outcomes = new GroupCommit<PendingOutcome, void>({
      write: (batch) => this.#write(batch),
      maxBatchWeight: OUTCOMES_PER_BATCH,
      onAfterAnswersError: (error) => this.logger.error({ err: logSafeError(error) }, 'could not count given-up webhook deliveries'),
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
    this.client.close()
  }

  async pass(now: Date): Promise<Date | null> {
    if (this.#stopping.signal.aborted) return null
    const nowIso = now.toISOString()
    for (;;) {
      const free = CONCURRENCY.total - this.#inFlight.size
      if (free <= 0) break
      const saturated = [...this.#perTarget].filter(([, count]) => count >= CONCURRENCY.perTarget).map(([key]) => key)
      const due = await this.deliveries.due(nowIso, free + CONCURRENCY.perTarget, { ids: [...this.#inFlight.keys()], targets: saturated })
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
    return this.deliveries.nextDueAfter(nowIso)
  }

  /**
   * Marks a webhook's waiting deliveries dropped (paused or switched off; docs/webhooks.md, Webhook
   * states). Those in flight finish their attempt and are dropped then if it fails.
   */
  async dropWaiting(webhookId: number, reason: string): Promise<number> {
    const dropped = await this.deliveries.dropWaiting(webhookId, [...this.#inFlight.keys()], reason, this.clock.now().toISOString())
    if (dropped) this.#announce([], [webhookId])
    return dropped
  }

  /**
   * A rule changed, rotated its secret or was deleted (`null`): its waiting calls follow it
   * (docs/webhooks.md, Rule calls). Those in flight finish their attempt as they were sent.
   */
  async retargetRuleCalls(ruleId: string, rule: { url: string; secretSealed: string } | null): Promise<number> {
    const dropped = await this.deliveries.retargetRuleCalls(ruleId, [...this.#inFlight.keys()], rule, DROPPED_RULE_GONE, this.clock.now().toISOString())
    if (dropped.length) this.#announce(dropped, [])
    return dropped.length
  }

  /** One live announcement per stored batch (listeners/live_webhooks.ts), not one per delivery. */
  #announce(deliveryIds: number[], webhookIds: Array<number | null>) {
    const payload = {
      deliveryIds: deliveryIds.map(String),
      webhookIds: [...new Set(webhookIds.filter((id): id is number => id !== null).map(String))],
    }
    emitter.emit('webhooks:deliveries_changed', payload).catch((error) => {
      this.logger.warn({ err: logSafeError(error) }, 'could not announce webhook delivery outcomes')
    })
  }

  #start(row: DueDelivery) {
    this.#perTarget.set(row.target_key, (this.#perTarget.get(row.target_key) ?? 0) + 1)
    const attempt = this.#attempt(row)
      .catch((error) => this.logger.error({ err: logSafeError(error), delivery: row.id }, 'webhook attempt failed to run'))
      .finally(() => {
        this.#inFlight.delete(row.id)
        const left = (this.#perTarget.get(row.target_key) ?? 1) - 1
        if (left > 0) this.#perTarget.set(row.target_key, left)
        else this.#perTarget.delete(row.target_key)
        this.wakeUp.wake()
      })
    this.#inFlight.set(row.id, { targetKey: row.target_key, attempt })
  }

  async #attempt(row: DueDelivery): Promise<void> {
    const { clock, secrets, client } = this
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
    const failedWebhooks = [...new Set(batch.filter((entry) => !entry.outcome.ok && entry.delivery.webhook_id !== null).map((entry) => entry.delivery.webhook_id!))]
    const active = await this.webhooks.activeAmong(failedWebhooks)

    const givenUp: number[] = []
    const rows = batch.map(({ delivery, outcome, at }): StoredOutcome => {
      const attempts = delivery.attempts + 1
      const base = { id: delivery.id, attempts, httpStatus: outcome.httpStatus, durationMs: outcome.durationMs, answer: outcome.answer || null, error: outcome.error }
      const atIso = at.toISOString()
      if (outcome.ok) return { ...base, status: 'success', dueAt: null, completedAt: atIso }
      const webhookActive = delivery.webhook_id === null || active.has(delivery.webhook_id)
      if (!webhookActive) return { ...base, status: 'failed', dueAt: null, completedAt: atIso, error: outcome.error ?? DROPPED_PAUSED }
      if (attempts < MAX_ATTEMPTS) {
        const dueAt = new Date(at.getTime() + RETRY_WAITS_MS[attempts - 1])
        this.wakeUp.wake(dueAt)
        return { ...base, status: 'pending', dueAt: dueAt.toISOString(), completedAt: null }
      }
      if (delivery.webhook_id !== null) givenUp.push(delivery.webhook_id)
      return { ...base, status: 'failed', dueAt: null, completedAt: atIso }
    })

    const now = this.clock.now().toISOString()
    const succeeded = [...new Set(batch.filter((entry) => entry.outcome.ok && entry.delivery.webhook_id !== null).map((entry) => entry.delivery.webhook_id!))]
    await transaction(async (trx) => {
      await this.deliveries.storeOutcomes(trx, rows, now)
      // A success resets the failure counter to 0 (docs/webhooks.md, Webhook states).
      await this.webhooks.resetFailures(trx, succeeded)
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
    const webhook = await this.webhooks.countGivenUp(webhookId)
    if (!webhook || !webhook.active || webhook.consecutive_failures < SWITCH_OFF_AFTER) return
    if (!(await this.webhooks.switchOff(webhookId, this.clock.now().toISOString()))) return
    this.subscriptions.invalidate()
    const dropped = await this.dropWaiting(webhookId, DROPPED_SWITCHED_OFF)
    // The webhook's own state changed too (Disabled after failures), dropped deliveries or not.
    if (!dropped) this.#announce([], [webhookId])
    await this.activity.warning(
      'webhooks',
      'webhook.disabled',
      `Webhook "${webhook.name}" was switched off after ${webhook.consecutive_failures} deliveries in a row were given up`,
      { webhookId: String(webhookId), consecutiveFailures: webhook.consecutive_failures, droppedDeliveries: dropped }
    )
  }
}
