import db from '@adonisjs/lucid/services/db'
import { messageStatuses, type MessageCategory, type MessageDirection, type MessageStatus } from '#modules/messages/models/message'

export { messageCategories, messageStatuses, type MessageCategory, type MessageStatus } from '#modules/messages/models/message'

export interface VolumeFilters {
  direction?: MessageDirection
  category?: MessageCategory
  deviceId?: string
}

/** Messages created in bucket `bucket` (its position in the boundaries) now in this status. */
export interface VolumeCount {
  bucket: number
  direction: MessageDirection
  status: MessageStatus
  count: number
}

/** The counters' resolution (migration 0011): a boundary inside a slot counts the whole slot. */
export const VOLUME_SLOT_SECONDS = 900

/**
 * How many messages were created between boundaries, by direction and current status, read
 * from the counters the database keeps as messages change (migration 0011, docs/statistics.md):
 * the cost follows the number of slots in the range, not the number of messages.
 */
export class MessageVolume {
  /**
   * `boundaries` ascending; bucket i is [boundaries[i], boundaries[i + 1]). Buckets with no
   * messages are absent from the answer.
   */
  async count(boundaries: Date[], filters: VolumeFilters = {}): Promise<VolumeCount[]> {
    if (boundaries.length < 2) return []
    const slots = boundaries.map((boundary) => Math.floor(boundary.getTime() / 1000 / VOLUME_SLOT_SECONDS) * VOLUME_SLOT_SECONDS)
    const buckets = slots.slice(0, -1).map((from, index) => [index, from, slots[index + 1]])
    const filtered = (['direction', 'category', 'deviceId'] as const).filter((name) => filters[name] !== undefined)
    const conditions = filtered.map((name) => `AND v.${name === 'deviceId' ? 'device_id' : name} = ?`)
    const values = [...buckets.flat(), ...filtered.map((name) => filters[name])]
    // CROSS JOIN keeps the buckets outside: one seek into the counters' key per bucket. Left to
    // itself, the planner may scan every counter once per bucket when a filter is added.
    const rows = await db.rawQuery(
      `WITH buckets(position, start_slot, end_slot) AS (VALUES ${buckets.map(() => '(?, ?, ?)').join(', ')})
       SELECT buckets.position AS bucket, v.direction AS direction, ${messageStatuses.map((status) => `SUM(v.${status}) AS ${status}`).join(', ')}
         FROM buckets CROSS JOIN message_volume v
        WHERE v.slot >= buckets.start_slot AND v.slot < buckets.end_slot ${conditions.join(' ')}
        GROUP BY 1, 2`,
      values
    )
    return rows.flatMap((row: any) =>
      messageStatuses
        .filter((status) => Number(row[status]) > 0)
        .map((status) => ({ bucket: Number(row.bucket), direction: row.direction, status, count: Number(row[status]) }))
    )
  }
}
