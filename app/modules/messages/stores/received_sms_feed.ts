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
    const rows = await db
      .from('messages')
      .where('direction', 'in')
      .where('id', '>', lastId)
      .orderBy('id', 'asc')
      .limit(limit)
      .select('id', 'conversation_id', 'phone', 'body', 'device_id', 'sim_slot', 'created_at')
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
