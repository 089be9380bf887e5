import db from '@adonisjs/lucid/services/db'
import { eachChunk } from '#core/database/statement_chunks'

/**
 * Messages queued in batches under one `campaignId`, as their sender follows them: their
 * statuses, those waiting that pause, resume and cancel act on (`MessageLedger`), the backlog.
 * Named for what it reads, not for its caller (the campaigns module). A store of the `messages`
 * table read so (docs/modules.md, Data access): the query builder and SQL text.
 */
export class MessageBacklog {
  /** The current status of each of these messages (a campaign reconciling its recipients); a deleted one is absent. */
  async statusesOf(messageIds: number[]): Promise<Map<number, { status: string; errorCode: string | null }>> {
    const rows = await eachChunk(messageIds, 5000, (chunk): Promise<Array<{ id: number; status: string; error_code: string | null }>> =>
      db.rawQuery(`SELECT id, status, error_code FROM messages WHERE id IN (SELECT value FROM json_each(?))`, [JSON.stringify(chunk)])
    )
    return new Map(rows.map((row) => [row.id, { status: row.status, errorCode: row.error_code }]))
  }

  /**
   * A campaign's messages not handed to a phone yet, and those it paused: what pause, resume and
   * cancel act on; `handedOut` adds its queued ones already handed to a phone, of which a cancel
   * takes back those the phone has not accepted where its kind can (`MessageLedger.cancel`).
   */
  async waitingOf(campaignId: number, statuses: Array<'queued' | 'pending_quota_exceeded' | 'paused'>, options: { handedOut?: boolean } = {}): Promise<number[]> {
    const query = db.from('messages').where('campaign_id', campaignId).whereIn('status', statuses)
    if (!options.handedOut) query.whereNull('ordered_at')
    const rows = await query.select('id')
    return rows.map((row) => row.id)
  }

  /** Messages of the campaign still to be sent (queued or waiting for a quota): the backlog the throttle bounds. */
  async backlogOf(campaignId: number): Promise<number> {
    const [row] = await db.rawQuery(`SELECT COUNT(*) AS n FROM messages WHERE campaign_id = ? AND status IN ('queued', 'pending_quota_exceeded')`, [campaignId])
    return Number(row.n)
  }
}
