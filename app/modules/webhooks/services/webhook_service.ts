import { inject } from '@adonisjs/core'
import emitter from '@adonisjs/core/services/emitter'
import { Clock } from '#core/time/clock'
import { Secrets } from '#core/secrets/secrets'
import { ApiError } from '#core/http/api_error'
import type { Caller } from '#core/http/access'
import { ActivityLog } from '#core/activity/activity_log'
import { dateTimeOf } from '#core/database/utc_date_time'
import type { PageRequest } from '#core/pagination/keyset_page'
import type { PublicEventName } from '#core/events/public_events'
import type Webhook from '#modules/webhooks/models/webhook'
import type { CustomHeader, WebhookMethod } from '#modules/webhooks/models/webhook'
import { WebhookStore } from '#modules/webhooks/stores/webhook_store'
import { drawSecret } from '#modules/webhooks/services/call_signature'
import { DestinationPolicy } from '#modules/webhooks/services/destination_policy'
import { WebhookSubscriptions } from '#modules/webhooks/services/webhook_subscriptions'
import { DeliveryWorker, DROPPED_PAUSED } from '#modules/webhooks/services/delivery_worker'
import type { WebhookWithSecret } from '#modules/webhooks/schemas'

export interface WebhookFields {
  name?: string
  url?: string
  method?: string
  events?: string[]
  headers?: CustomHeader[]
  secret?: string | null
  active?: boolean
}

/** The length of a secret given by the operator (docs/webhooks.md, Subscribing). */
const SECRET_LENGTH = { min: 16, max: 200 }

/** Webhook subscriptions: creating, reading, changing, pausing, deleting (docs/webhooks.md, Webhook states). */
@inject()
export class WebhookService {
  constructor(
    private clock: Clock,
    private secrets: Secrets,
    private policy: DestinationPolicy,
    private subscriptions: WebhookSubscriptions,
    private worker: DeliveryWorker,
    private activity: ActivityLog,
    private webhooks: WebhookStore
  ) {}

  /** The secret is answered here only; it is stored sealed with the master key. */
  async create(fields: WebhookFields & { name: string; url: string; events: string[] }, by: Caller | null): Promise<WebhookWithSecret> {
    await this.#assertNameFree(fields.name)
    this.#assertDestination(fields.url)
    const secret = fields.secret ? this.#checkedSecret(fields.secret) : drawSecret()
    const now = dateTimeOf(this.clock.now())
    const webhook = await this.webhooks.add({
      name: fields.name,
      nameKey: fields.name.toLowerCase(),
      url: fields.url,
      method: (fields.method ?? 'POST') as WebhookMethod,
      events: fields.events as PublicEventName[],
      headers: fields.headers ?? [],
      secretSealed: this.secrets.seal(secret),
      active: fields.active ?? true,
      consecutiveFailures: 0,
      disabledAt: null,
      createdAt: now,
      updatedAt: now,
    })
    this.subscriptions.invalidate()
    await this.activity.actingFor(by).info('webhooks', 'webhook.created', `Webhook "${webhook.name}" was created`, { webhookId: String(webhook.id) })
    await emitter.emit('webhooks:changed', { webhookIds: [String(webhook.id)] })
    return { webhook: webhook.toResource(), secret }
  }

  /** Newest first, in pages like every list. */
  async list(page: PageRequest) {
    const result = await this.webhooks.page(page)
    return { data: result.data.map((webhook) => webhook.toResource()), nextCursor: result.nextCursor }
  }

  async find(id: number): Promise<Webhook> {
    const webhook = await this.webhooks.find(id)
    if (!webhook) throw ApiError.notFound('Webhook')
    return webhook
  }

  /**
   * A partial change. `active: false` pauses (waiting deliveries dropped); `active: true` turns
   * it back on with the failure counter at 0; a non-empty secret replaces the current one for
   * every call from now on, retries included; an empty one keeps it.
   */
  async update(id: number, fields: WebhookFields, by: Caller | null) {
    const webhook = await this.find(id)
    if (fields.name !== undefined && fields.name.toLowerCase() !== webhook.nameKey) await this.#assertNameFree(fields.name)
    if (fields.url !== undefined) this.#assertDestination(fields.url)
    const secret = fields.secret ? this.#checkedSecret(fields.secret) : null

    const wasActive = webhook.active
    if (fields.name !== undefined) {
      webhook.name = fields.name
      webhook.nameKey = fields.name.toLowerCase()
    }
    if (fields.url !== undefined) webhook.url = fields.url
    if (fields.method !== undefined) webhook.method = fields.method as WebhookMethod
    if (fields.events !== undefined) webhook.events = fields.events as PublicEventName[]
    if (fields.headers !== undefined) webhook.headers = fields.headers
    if (secret) webhook.secretSealed = this.secrets.seal(secret)
    if (fields.active === true && (!wasActive || webhook.disabledAt)) {
      webhook.active = true
      webhook.consecutiveFailures = 0
      webhook.disabledAt = null
    } else if (fields.active === false) {
      webhook.active = false
    }
    webhook.updatedAt = dateTimeOf(this.clock.now())
    await this.webhooks.save(webhook)
    this.subscriptions.invalidate()

    if (wasActive && !webhook.active) {
      await this.worker.dropWaiting(webhook.id, DROPPED_PAUSED)
      await this.activity.actingFor(by).info('webhooks', 'webhook.paused', `Webhook "${webhook.name}" was paused`, { webhookId: String(webhook.id) })
    } else if (!wasActive && webhook.active) {
      await this.activity.actingFor(by).info('webhooks', 'webhook.resumed', `Webhook "${webhook.name}" was turned back on`, { webhookId: String(webhook.id) })
    }
    await emitter.emit('webhooks:changed', { webhookIds: [String(webhook.id)] })
    return webhook.toResource()
  }

  /** Deletes the webhook and its delivery log (the rows cascade). */
  async delete(id: number, by: Caller | null): Promise<void> {
    const webhook = await this.find(id)
    await this.webhooks.remove(webhook)
    this.subscriptions.invalidate()
    await this.activity.actingFor(by).info('webhooks', 'webhook.deleted', `Webhook "${webhook.name}" was deleted`, { webhookId: String(webhook.id) })
    await emitter.emit('webhooks:changed', { webhookIds: [String(webhook.id)] })
  }

  async #assertNameFree(name: string) {
    if (await this.webhooks.nameTaken(name)) throw new ApiError('NAME_TAKEN', 'Another webhook has this name', [{ field: 'name', rule: 'unique', message: 'Another webhook has this name' }])
  }

  #checkedSecret(secret: string): string {
    if (secret.length < SECRET_LENGTH.min || secret.length > SECRET_LENGTH.max) {
      throw ApiError.validation('secret', 'length', `The secret must be ${SECRET_LENGTH.min} to ${SECRET_LENGTH.max} characters`)
    }
    return secret
  }

  #assertDestination(url: string) {
    const refusal = this.policy.refusalOfUrl(url)
    if (refusal) throw ApiError.validation('url', 'destination', refusal)
  }
}
