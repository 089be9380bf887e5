import db from '@adonisjs/lucid/services/db'

/** An SMS a phone received, as the automation rules read it. */
export interface ReceivedSms {
  id: number
  conversationId: number
  phone: string
  body: string
  deviceId: string | null
  simSlot: number | null
  receivedAt: Date
}

/**
 * The read of `ReceivedSmsFeed.after`: from the table's own key, from the cursor on, so it reads
 * what was stored since. `+direction` keeps the direction out of the planner's choice of index
 * (SQLite's unary plus): with no statistics it prefers an equality, took
 * `messages_direction_created_at_id` and walked every inbound message ever stored, then sorted
 * them, on every pass of the automation rules.
 */
export function receivedAfterQuery(lastId: number, limit: number) {
  return db
    .from('messages')
    .whereRaw(`+direction = 'in'`)
    .where('id', '>', lastId)
    .orderBy('id', 'asc')
    .limit(limit)
    .select('id', 'conversation_id', 'phone', 'body', 'device_id', 'sim_slot', 'created_at')
}

/**
 * Inbound messages in the order they were stored (their ids grow), for a reader that keeps its
 * own cursor: the automation rules' durable queue. A store of the `messages` table read so
 * (docs/modules.md, Data access): the query builder.
 */
export class ReceivedSmsFeed {
  /** The id of the newest message stored (0: none), where a reader starting now begins. */
  async latestId(): Promise<number> {
    const row = await db.from('messages').max('id as id').first()
    return Number(row?.id ?? 0)
  }

  /** At most `limit` inbound messages stored after `lastId`, oldest first. */
  async after(lastId: number, limit: number): Promise<ReceivedSms[]> {
    const rows = await receivedAfterQuery(lastId, limit)
    return rows.map((row) => ({
      id: row.id,
      conversationId: row.conversation_id,
      phone: row.phone,
      body: row.body,
      deviceId: row.device_id,
      simSlot: row.sim_slot,
      receivedAt: new Date(row.created_at),
    }))
  }
}
