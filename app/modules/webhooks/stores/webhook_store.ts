import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { affectedRows } from '#core/database/affected_rows'
import { toIso } from '#core/database/utc_date_time'
import { keysetPage, type Page, type PageRequest } from '#core/pagination/keyset_page'
import Webhook from '#modules/webhooks/models/webhook'

/**
 * The `webhooks` table (docs/modules.md, Data access): the Webhook model for a subscription's
 * own changes (create, read, change, delete), the query builder for what the delivery engine
 * reads and counts on many rows at once.
 */
export class WebhookStore {
  /** A page of webhooks, newest first. */
  async page(request: PageRequest): Promise<Page<Webhook>> {
    return keysetPage(Webhook.query(), request, 'created_at', (row) => toIso(row.createdAt))
  }

  async find(id: number): Promise<Webhook | null> {
    return Webhook.find(id)
  }

  async nameTaken(name: string): Promise<boolean> {
    return Boolean(await Webhook.query().where('name_key', name.toLowerCase()).first())
  }

  async add(fields: Partial<Webhook>): Promise<Webhook> {
    return Webhook.create(fields)
  }

  async save(webhook: Webhook): Promise<void> {
    await webhook.save()
  }

  /** Deletes the webhook; its delivery log goes with it (the rows cascade). */
  async remove(webhook: Webhook): Promise<void> {
    await webhook.delete()
  }

  /** The names of these webhooks, by id. */
  async namesOf(ids: number[]): Promise<Map<number, string>> {
    if (!ids.length) return new Map()
    const webhooks = await Webhook.query().whereIn('id', ids).select('id', 'name')
    return new Map(webhooks.map((webhook) => [webhook.id, webhook.name]))
  }

  /** Every active webhook with the events it listens to (a JSON list). */
  async activeSubscriptions(): Promise<Array<{ id: number; events: string }>> {
    return db.from('webhooks').where('active', 1).select('id', 'events')
  }

  /** Which of these webhooks are active now. */
  async activeAmong(ids: number[]): Promise<Set<number>> {
    const active = new Set<number>()
    if (ids.length) for (const row of await db.from('webhooks').whereIn('id', ids).where('active', 1).select('id')) active.add(row.id)
    return active
  }

  /** A success resets the failure counter to 0, in the outcomes' transaction. */
  async resetFailures(trx: TransactionClientContract, ids: number[]): Promise<void> {
    if (ids.length) await trx.from('webhooks').whereIn('id', ids).where('consecutive_failures', '>', 0).update({ consecutive_failures: 0 })
  }

  /** Counts one more given-up delivery; answers the webhook as it is then (null: deleted). */
  async countGivenUp(id: number): Promise<{ name: string; active: number; consecutive_failures: number } | null> {
    await db.from('webhooks').where('id', id).increment('consecutive_failures', 1)
    return (await db.from('webhooks').where('id', id).select('name', 'active', 'consecutive_failures').first()) ?? null
  }

  /** Switches an active webhook off; false when it was not active any more. */
  async switchOff(id: number, at: string): Promise<boolean> {
    return affectedRows(await db.from('webhooks').where('id', id).where('active', 1).update({ active: 0, disabled_at: at, updated_at: at })) > 0
  }

  /** Webhooks the gateway switched off after repeated failures. */
  async switchedOffCount(): Promise<number> {
    const row = await db.from('webhooks').where('active', 0).whereNotNull('disabled_at').count('* as count').first()
    return Number(row?.count ?? 0)
  }
}
