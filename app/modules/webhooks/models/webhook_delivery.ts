import { BaseModel, column } from '@adonisjs/lucid/orm'
import type { DateTime } from 'luxon'
import { toIso, utcDateTime } from '#core/database/utc_date_time'
import { idColumn, referenceColumn } from '#core/database/columns'
import { MAX_ATTEMPTS, type WebhookDeliveryResource } from '#modules/webhooks/schemas'

export type DeliveryStatus = 'pending' | 'success' | 'failed'

/**
 * One delivery of an event to a webhook, or one call of a rule's URL: a row of the delivery log
 * and, while pending, of the queue (its due time says when the next attempt leaves).
 */
export default class WebhookDelivery extends BaseModel {
  static table = 'webhook_deliveries'

  @idColumn()
  declare id: number

  @column()
  declare deliveryId: string

  @referenceColumn()
  declare webhookId: number | null

  @column()
  declare ruleId: string | null

  @column()
  declare ruleName: string | null

  @column()
  declare ruleUrl: string | null

  @column()
  declare ruleSecretSealed: string | null

  @column()
  declare targetKey: string

  @column()
  declare event: string

  @column()
  declare body: string

  @column()
  declare status: DeliveryStatus

  @column()
  declare attempts: number

  @utcDateTime()
  declare dueAt: DateTime | null

  @column()
  declare httpStatus: number | null

  @column()
  declare durationMs: number | null

  @column()
  declare answer: string | null

  @column()
  declare error: string | null

  @utcDateTime()
  declare createdAt: DateTime

  @utcDateTime()
  declare updatedAt: DateTime

  @utcDateTime()
  declare completedAt: DateTime | null

  /**
   * A delivery log entry (docs/webhooks.md, The delivery log): date, event, webhook or rule,
   * status, attempts out of 5, HTTP code, duration of the last attempt, and `detail`: the network
   * error, else the first 500 characters of the answer, else the time of the next attempt.
   */
  toResource(webhookName: string | null): WebhookDeliveryResource {
    const nextAttemptAt = this.status === 'pending' && this.dueAt ? toIso(this.dueAt) : null
    const detail =
      this.error ?? (this.answer ? this.answer : null) ?? statusHint(this.httpStatus) ?? (nextAttemptAt && this.attempts > 0 ? `next attempt at ${nextAttemptAt}` : null)
    return {
      id: String(this.id),
      deliveryId: this.deliveryId,
      createdAt: toIso(this.createdAt),
      event: this.event,
      target: this.webhookId
        ? { type: 'webhook' as const, id: String(this.webhookId), name: webhookName }
        : { type: 'rule' as const, id: this.ruleId, name: this.ruleName },
      webhookId: this.webhookId ? String(this.webhookId) : null,
      ruleId: this.ruleId,
      status: this.status,
      attempts: this.attempts,
      maxAttempts: MAX_ATTEMPTS,
      httpStatus: this.httpStatus,
      durationMs: this.durationMs,
      detail,
      error: this.error,
      answer: this.answer,
      nextAttemptAt,
      completedAt: this.completedAt ? toIso(this.completedAt) : null,
    }
  }
}

/** An answer without text still says something (docs/webhooks.md, The delivery log: `detail`). */
function statusHint(status: number | null): string | null {
  if (status === null || (status >= 200 && status < 300)) return null
  if (status === 401 || status === 403) return `HTTP ${status}: the receiver refused the call, most often a signature problem (check the secret on both sides)`
  if (status >= 300 && status < 400) return `HTTP ${status}: a redirect, never followed (use the final URL)`
  return `HTTP ${status}`
}
