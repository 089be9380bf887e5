import { randomUUID } from 'node:crypto'
import type { Logger } from '@adonisjs/core/logger'
import type { Clock } from '#core/time/clock'
import type { PublicEvent, PublicEventName } from '#core/events/public_events'
import { logSafeError } from '#core/logging/redaction'
import { GroupCommit } from '#core/group_commit/group_commit'
import emitter from '@adonisjs/core/services/emitter'
import type { WebhookSubscriptions } from '#modules/webhooks/services/webhook_subscriptions'
import type { DeliveryWake } from '#modules/webhooks/jobs/delivery_job'
import type { DeliveryStore } from '#modules/webhooks/stores/delivery_store'
import { transaction } from '#core/database/transaction'

/** A delivery row about to be written. */
export interface NewDelivery {
  webhookId: number | null
  rule?: { id: string; name: string; url: string; secretSealed: string }
  event: string
  body: string
}

/** Rows written by one transaction at most (a burst larger than this takes several). */
const ROWS_PER_BATCH = 10_000

/**
 * The part of the delivery engine that records what must be sent: one pending row per active
 * webhook subscribed to an event at the moment it happens (docs/webhooks.md, How it is built).
 * Events arriving together (a burst of `message.sent`) are written by one statement, not one
 * each; the promise a caller awaits resolves once its rows are stored.
 */
export class DeliveryRecorder {
  /** Each item: the rows of one event (or one rule run), written together with the burst's others. */
  readonly #commit: GroupCommit<Array<Record<string, unknown>>, void>

  constructor(
    private clock: Clock,
    private subscriptions: WebhookSubscriptions,
    private logger: Logger,
    /** Tells the delivery worker there is something new to send. */
    private wakeUp: DeliveryWake,
    private deliveries: DeliveryStore
  ) {
    this.#commit = new GroupCommit<Array<Record<string, unknown>>, void>({
      write: (rowSets) => this.#write(rowSets),
      weight: (rows) => rows.length,
      maxBatchWeight: ROWS_PER_BATCH,
      onAfterAnswersError: () => {},
    })
  }

  /**
   * The call's body (docs/webhooks.md, A call): event, at, id and the fields the event has; empty
   * ones omitted.
   */
  static callBody(event: PublicEventName, payload: PublicEvent): string {
    const body: Record<string, string> = { event, at: payload.at.toISOString(), id: payload.id }
    if (payload.conversationId) body.conversationId = payload.conversationId
    if (payload.deviceId) body.deviceId = payload.deviceId
    if (payload.status) body.status = payload.status
    return JSON.stringify(body)
  }

  async recordEvent(event: PublicEventName, payload: PublicEvent): Promise<void> {
    const webhookIds = await this.subscriptions.activeFor(event)
    if (!webhookIds.length) return
    const body = DeliveryRecorder.callBody(event, payload)
    await this.record(webhookIds.map((webhookId) => ({ webhookId, event, body })))
  }

  /**
   * Stores deliveries due now; resolves once they are written. A write that fails is logged,
   * not thrown: the event's emitter (a send, a phone's report) must not fail for its webhooks.
   */
  record(deliveries: NewDelivery[]): Promise<void> {
    const now = this.clock.now().toISOString()
    const rows = deliveries.map((delivery) => this.#row(delivery, now))
    return this.#commit.add(rows).catch((error) => {
      this.logger.error({ err: logSafeError(error), deliveries: rows.length }, 'could not record webhook deliveries')
    })
  }

  /** Stores deliveries at once, outside any burst, and answers their row ids (a replay). */
  async recordReturning(deliveries: NewDelivery[]): Promise<number[]> {
    const now = this.clock.now().toISOString()
    const ids: number[] = []
    for (const delivery of deliveries) ids.push(await this.deliveries.add(this.#row(delivery, now)))
    this.wakeUp.wake()
    this.#announce(deliveries)
    return ids
  }

  #row(delivery: NewDelivery, now: string): Record<string, unknown> {
    return {
      delivery_id: randomUUID(),
      webhook_id: delivery.webhookId,
      rule_id: delivery.rule?.id ?? null,
      rule_name: delivery.rule?.name ?? null,
      rule_url: delivery.rule?.url ?? null,
      rule_secret_sealed: delivery.rule?.secretSealed ?? null,
      target_key: delivery.webhookId ? `webhook:${delivery.webhookId}` : `rule:${delivery.rule!.id}`,
      event: delivery.event,
      body: delivery.body,
      status: 'pending',
      attempts: 0,
      due_at: now,
      created_at: now,
      updated_at: now,
    }
  }

  /** Resolves once everything recorded so far is written. */
  flushed(): Promise<void> {
    return this.#commit.idle()
  }

  /** Events arriving together (a burst of `message.sent`) are written by one transaction. */
  async #write(rowSets: Array<Array<Record<string, unknown>>>) {
    const rows = rowSets.flat()
    await transaction((trx) => this.deliveries.addMany(trx, rows))
    this.wakeUp.wake()
    this.#announce(rows.map((row) => ({ webhookId: row.webhook_id as number | null })))
    return { results: rowSets.map(() => undefined) }
  }

  /** One live announcement per written batch (listeners/live_webhooks.ts), not one per delivery. */
  #announce(rows: Array<{ webhookId: number | null }>) {
    const webhookIds = [...new Set(rows.filter((row) => row.webhookId !== null).map((row) => String(row.webhookId)))]
    emitter.emit('webhooks:deliveries_recorded', { webhookIds, count: rows.length }).catch((error) => {
      this.logger.warn({ err: logSafeError(error) }, 'could not announce recorded webhook deliveries')
    })
  }
}
