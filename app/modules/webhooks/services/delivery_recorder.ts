import { randomUUID } from 'node:crypto'
import type { Database } from '@adonisjs/lucid/database'
import type { Logger } from '@adonisjs/core/logger'
import type { Clock } from '#core/time/clock'
import type { PublicEvent, PublicEventName } from '#core/events/public_events'
import { logSafeError } from '#core/logging/redaction'
import type { WebhookSubscriptions } from '#modules/webhooks/services/webhook_subscriptions'

/** A delivery row about to be written. */
export interface NewDelivery {
  webhookId: number | null
  rule?: { id: string; name: string; url: string; secretSealed: string }
  event: string
  body: string
}

/** Rows per INSERT: 16 columns each stays far below SQLite's bound-parameter limit. */
const ROWS_PER_STATEMENT = 200

/**
 * The part of the delivery engine that records what must be sent: one pending row per active
 * webhook subscribed to an event at the moment it happens (spec, Delivery status "(created)").
 * Events arriving together (a burst of `message.sent`) are written by one statement, not one
 * each; the promise a caller awaits resolves once its rows are stored.
 */
export class DeliveryRecorder {
  #buffer: Array<Record<string, unknown>> = []
  /** The flush that will take the rows buffered now. */
  #next: Promise<void> | null = null
  #running: Promise<void> | null = null

  constructor(
    private db: Database,
    private clock: Clock,
    private subscriptions: WebhookSubscriptions,
    private logger: Logger,
    /** Tells the delivery worker there is something new to send. */
    private wakeWorker: () => void
  ) {}

  /** Spec, Webhook call body: event, at, id and the fields the event has; empty ones omitted. */
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

  /** Stores deliveries due now; resolves once they are written. */
  record(deliveries: NewDelivery[]): Promise<void> {
    const now = this.clock.now().toISOString()
    for (const delivery of deliveries) this.#buffer.push(this.#row(delivery, now))
    return this.#scheduleFlush()
  }

  /** Stores deliveries at once, outside any burst, and answers their row ids (a replay). */
  async recordReturning(deliveries: NewDelivery[]): Promise<number[]> {
    const now = this.clock.now().toISOString()
    const ids: number[] = []
    for (const delivery of deliveries) {
      const [inserted] = await this.db.table('webhook_deliveries').insert(this.#row(delivery, now)).returning('id')
      ids.push(typeof inserted === 'object' ? inserted.id : inserted)
    }
    this.wakeWorker()
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
  async flushed(): Promise<void> {
    while (this.#next || this.#running) await (this.#next ?? this.#running)
  }

  /**
   * Rows recorded while a flush runs wait for the next one, which every caller since shares:
   * one statement per burst, one flush at a time.
   */
  #scheduleFlush(): Promise<void> {
    if (this.#next) return this.#next
    const previous = this.#running ?? Promise.resolve()
    this.#next = previous
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => {
        this.#next = null
        const running = this.#flush()
        const tracked = running.finally(() => {
          if (this.#running === tracked) this.#running = null
        })
        this.#running = tracked
        return running
      })
    return this.#next
  }

  async #flush(): Promise<void> {
    const rows = this.#buffer
    this.#buffer = []
    if (!rows.length) return
    try {
      await this.db.transaction(async (trx) => {
        for (let index = 0; index < rows.length; index += ROWS_PER_STATEMENT) {
          await trx.table('webhook_deliveries').multiInsert(rows.slice(index, index + ROWS_PER_STATEMENT))
        }
      })
      this.wakeWorker()
    } catch (error) {
      this.logger.error({ err: logSafeError(error), deliveries: rows.length }, 'could not record webhook deliveries')
    }
  }
}
