import db from '@adonisjs/lucid/services/db'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'
import { toIso } from '#core/database/utc_date_time'
import { keysetPage, type Page, type PageRequest } from '#core/pagination/keyset_page'
import Campaign, { type CampaignStatus } from '#modules/campaigns/models/campaign'
import type { ResolvedRecipient } from '#modules/campaigns/services/audience_resolution'
import { chunksOf, marks } from '#core/database/statement_chunks'

/** A recipient's status is final once its message can change no more (sent is final: a receipt may follow). */
export const FINAL_STATUSES = ['sent', 'delivered', 'failed', 'cancelled']
const FINAL = marks(FINAL_STATUSES)
type Change = Record<string, string | number | null>

/**
 * The `campaigns` and `campaign_recipients` tables (docs/modules.md, Data access): the Campaign
 * model for a campaign's own edits, the query builder for moves and recipient pages, SQL text
 * where one statement does a batch (resolved recipients, a turn, a retry, statuses followed from
 * the messages) or counts over the recipients' index.
 */
export class CampaignStore {
  page(filters: PageRequest & { status?: CampaignStatus }): Promise<Page<Campaign>> {
    const query = Campaign.query()
    if (filters.status) query.where('status', filters.status)
    return keysetPage(query, filters, 'created_at', (row) => toIso(row.createdAt))
  }

  find = (id: number) => Campaign.find(id)
  add = (fields: Partial<Campaign>) => Campaign.create(fields)
  save = (campaign: Campaign) => campaign.save()
  remove = (campaign: Campaign) => campaign.delete()

  inState(statuses: CampaignStatus[], settled?: false): Promise<Campaign[]> {
    const query = Campaign.query().whereIn('status', statuses)
    if (settled === false) query.where('settled', false)
    return query.orderBy('id')
  }

  /** A guarded change: answers whether the campaign was in one of `from`. */
  async move(id: number, from: string[], change: Change): Promise<boolean> {
    const updated = await db.from('campaigns').where('id', id).whereIn('status', from).update(change)
    return Number(Array.isArray(updated) ? updated[0] : updated) > 0
  }

  update = (id: number, change: Change) => db.from('campaigns').where('id', id).update(change)

  recipients(id: number, filters: { afterId?: number; limit: number; status?: string; run?: number }): Promise<any[]> {
    const query = db.from('campaign_recipients').where('campaign_id', id).orderBy('id', 'asc').limit(filters.limit)
    if (filters.status) query.where('status', filters.status)
    if (filters.run !== undefined) query.where('run', filters.run)
    if (filters.afterId !== undefined) query.where('id', '>', filters.afterId)
    return query.select('id', 'contact_id', 'phone', 'status', 'error_code', 'message_id', 'run', 'updated_at')
  }

  pending(id: number, limit: number): Promise<Array<{ id: number; phone: string; body: string }>> {
    return db.from('campaign_recipients').where('campaign_id', id).where('replaced', 0).where('status', 'pending').orderBy('id', 'asc').limit(limit).select('id', 'phone', 'body')
  }

  /** Recipients of the current run pending, or not final; or (`started`) those given a message. */
  async count(id: number, which: 'pending' | 'open' | 'started'): Promise<number> {
    const [where, bindings] = {
      pending: [`replaced = 0 AND status = 'pending'`, []],
      open: [`replaced = 0 AND status NOT IN (${FINAL})`, FINAL_STATUSES],
      started: ['message_id IS NOT NULL', []],
    }[which] as [string, string[]]
    const [{ n }] = await db.rawQuery(`SELECT COUNT(*) AS n FROM campaign_recipients WHERE campaign_id = ? AND ${where}`, [id, ...bindings])
    return Number(n)
  }

  countsByStatus(id: number, since: string): Promise<Array<{ status: string; n: number; recent: number }>> {
    return db.rawQuery(
      `SELECT status, COUNT(*) AS n, SUM(CASE WHEN updated_at >= ? THEN 1 ELSE 0 END) AS recent
       FROM campaign_recipients WHERE campaign_id = ? AND replaced = 0 GROUP BY status`,
      [since, id]
    )
  }

  /** Before an audience is resolved: an attempt cut short starts again from nothing. */
  clearRecipients = (id: number) => db.from('campaign_recipients').where('campaign_id', id).delete()

  async addRecipients(id: number, recipients: ResolvedRecipient[], at: string): Promise<void> {
    for (const chunk of chunksOf(recipients, 500)) {
      await db.rawQuery(
        `INSERT INTO campaign_recipients (campaign_id, run, contact_id, phone, body, status, replaced, updated_at)
         VALUES ${chunk.map(() => `(?, 1, ?, ?, ?, 'pending', 0, ?)`).join(', ')}`,
        chunk.flatMap((recipient) => [id, recipient.contactId, recipient.phone, recipient.body, at])
      )
    }
  }

  /** A turn's recipients (`[id, message id, status, error code]`) and credit left; false, nothing written, once the campaign stopped. */
  async recordTurn(trx: TransactionClientContract, id: number, turn: unknown[][], credit: number, at: string): Promise<boolean> {
    const [current] = await trx.rawQuery(`SELECT status FROM campaigns WHERE id = ?`, [id])
    if (current?.status !== 'running') return false
    // The pending guard makes a second writer (there is none: the job is single-flight) change nothing.
    await trx.rawQuery(
      `WITH v AS (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS message_id,
           json_extract(value, '$[2]') AS status, json_extract(value, '$[3]') AS error_code FROM json_each(?))
       UPDATE campaign_recipients SET message_id = v.message_id, status = v.status, error_code = v.error_code, updated_at = ?
       FROM v WHERE campaign_recipients.id = v.id AND campaign_recipients.status = 'pending'`,
      [JSON.stringify(turn), at]
    )
    await trx.rawQuery(`UPDATE campaigns SET throttle_credit = ?, last_pass_at = ?, updated_at = ? WHERE id = ?`, [credit, at, at, id])
    return true
  }

  async retryFailed(trx: TransactionClientContract, id: number, run: number, at: string): Promise<number> {
    const [{ n }] = await trx.rawQuery(`SELECT COUNT(*) AS n FROM campaign_recipients WHERE campaign_id = ? AND replaced = 0 AND status = 'failed'`, [id])
    if (!Number(n)) return 0
    await trx.rawQuery(
      `INSERT INTO campaign_recipients (campaign_id, run, contact_id, phone, body, status, error_code, message_id, replaced, updated_at)
       SELECT campaign_id, ?, contact_id, phone, body, 'pending', NULL, NULL, 0, ? FROM campaign_recipients
       WHERE campaign_id = ? AND replaced = 0 AND status = 'failed' ORDER BY id`,
      [run + 1, at, id]
    )
    await trx.rawQuery(`UPDATE campaign_recipients SET replaced = 1 WHERE campaign_id = ? AND replaced = 0 AND status = 'failed' AND run = ?`, [id, run])
    await trx.rawQuery(
      `UPDATE campaigns SET status = 'running', run = run + 1, completed_at = NULL, throttle_credit = 0, last_pass_at = ?, updated_at = ? WHERE id = ? AND status = 'completed'`,
      [at, at, id]
    )
    return Number(n)
  }

  /** A cancelled campaign's recipients (of the messages withdrawn, and the pending ones), then it is settled. */
  async settleCancel(id: number, withdrawn: number[], at: string): Promise<void> {
    const cancel = `UPDATE campaign_recipients SET status = 'cancelled', error_code = 'CAMPAIGN_CANCELLED', updated_at = ? WHERE`
    for (const chunk of chunksOf(withdrawn, 5000)) {
      await db.rawQuery(`${cancel} message_id IN (SELECT value FROM json_each(?))`, [at, JSON.stringify(chunk)])
    }
    await db.rawQuery(`${cancel} campaign_id = ? AND status = 'pending'`, [at, id])
    await db.from('campaigns').where('id', id).update({ settled: 1 })
  }

  unsettledRecipients(afterId: number): Promise<Array<{ id: number; message_id: number; status: string }>> {
    return db.rawQuery(
      `SELECT r.id, r.message_id, r.status FROM campaign_recipients r JOIN campaigns c ON c.id = r.campaign_id
       WHERE c.status IN ('running', 'paused', 'cancelled', 'scheduled') AND r.id > ? AND r.message_id IS NOT NULL
         AND r.status NOT IN (${FINAL}) ORDER BY r.id LIMIT 5000`,
      [afterId, ...FINAL_STATUSES]
    )
  }

  /** A message waiting for a quota counts as queued, a deleted one as cancelled; answers the campaigns touched. */
  async followMessages(changes: Array<[number, string]>, at: Date): Promise<number[]> {
    if (!changes.length) return []
    const rows = await db.rawQuery(
      `WITH c AS (SELECT json_extract(value, '$[0]') AS message_id, json_extract(value, '$[1]') AS status FROM json_each(?))
       UPDATE campaign_recipients SET status = c.status, updated_at = ?
       FROM c WHERE campaign_recipients.message_id = c.message_id AND campaign_recipients.status <> c.status RETURNING campaign_id`,
      [JSON.stringify(changes.map(([messageId, status]) => [messageId, status === 'deleted' ? 'cancelled' : status])), at.toISOString()]
    )
    return [...new Set<number>(rows.map((row: { campaign_id: number }) => row.campaign_id))]
  }
}
