import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Message counts per quarter hour of creation, by direction, category and phone, one column per
 * status, kept by triggers as messages are inserted, change state and are deleted
 * (docs/statistics.md).
 *
 * Why counters and not an index: counting a week of a million messages through any index walks
 * every one of their index entries (about half a second here), far from the 100 ms a statistics
 * answer may take. Quarter hours, because every time zone in use today is a whole number of
 * quarter hours away from UTC: a local hour or day is always a run of whole slots. A column per
 * status, so that a change of status (the common change) updates one row in place.
 *
 * Triggers rather than code in the ledger: every path that changes a message (the ledger's batch
 * statements, deletions, conversation cascades, a test's raw update) keeps the counts right,
 * and a restored older backup gets them from the backfill below when it is upgraded.
 */

/** The spec's message statuses when this migration was written; an inbound SMS is `delivered`. */
const statuses = ['queued', 'dispatched', 'sent', 'delivered', 'failed', 'pending_quota_exceeded', 'paused', 'cancelled']

type Row = 'NEW' | 'OLD'
const slotOf = (row: Row) => `CAST(strftime('%s', ${row}.created_at) AS INTEGER) / 900 * 900`
const sameKeyAs = (row: Row) =>
  `slot = ${slotOf(row)} AND direction = ${row}.direction AND category = ${row}.category AND device_id = COALESCE(${row}.device_id, '')`
const countIn = (row: Row) =>
  `INSERT INTO message_volume (slot, direction, category, device_id, ${statuses.join(', ')})
     VALUES (${slotOf(row)}, ${row}.direction, ${row}.category, COALESCE(${row}.device_id, ''), ${statuses.map((status) => `${row}.status = '${status}'`).join(', ')})
     ON CONFLICT (slot, direction, category, device_id) DO UPDATE SET ${statuses.map((status) => `${status} = ${status} + excluded.${status}`).join(', ')};`
const countOut = (row: Row) =>
  `UPDATE message_volume SET ${statuses.map((status) => `${status} = ${status} - (${row}.status = '${status}')`).join(', ')}
     WHERE ${sameKeyAs(row)};`
const keyChanged = ['created_at', 'direction', 'category', 'device_id'].map((column) => `OLD.${column} IS NOT NEW.${column}`)

export default class extends BaseSchema {
  async up() {
    // WITHOUT ROWID: the key is the table, so a range of slots is one seek and a sequential read.
    // device_id '' is "no phone yet" (NULLs never conflict in a unique key).
    this.schema.raw(`CREATE TABLE message_volume (
      slot INTEGER NOT NULL,
      direction TEXT NOT NULL,
      category TEXT NOT NULL,
      device_id TEXT NOT NULL,
      ${statuses.map((status) => `${status} INTEGER NOT NULL DEFAULT 0`).join(',\n      ')},
      PRIMARY KEY (slot, direction, category, device_id)
    ) WITHOUT ROWID`)
    this.schema.raw(`INSERT INTO message_volume (slot, direction, category, device_id, ${statuses.join(', ')})
      SELECT ${slotOf('NEW').replace('NEW.', '')}, direction, category, COALESCE(device_id, ''),
             ${statuses.map((status) => `SUM(status = '${status}')`).join(', ')}
        FROM messages GROUP BY 1, 2, 3, 4`)
    this.schema.raw(`CREATE TRIGGER message_volume_on_insert AFTER INSERT ON messages BEGIN ${countIn('NEW')} END`)
    this.schema.raw(`CREATE TRIGGER message_volume_on_delete AFTER DELETE ON messages BEGIN ${countOut('OLD')} END`)
    // A change of status only: one row updated in place.
    this.schema.raw(`CREATE TRIGGER message_volume_on_status AFTER UPDATE OF status ON messages
      WHEN OLD.status IS NOT NEW.status AND NOT (${keyChanged.join(' OR ')})
      BEGIN
        UPDATE message_volume SET ${statuses.map((status) => `${status} = ${status} + (NEW.status = '${status}') - (OLD.status = '${status}')`).join(', ')}
         WHERE ${sameKeyAs('OLD')};
      END`)
    // A message moved to another row (ordered to a phone, requeued off it): out of one, into the other.
    this.schema.raw(`CREATE TRIGGER message_volume_on_move AFTER UPDATE OF created_at, direction, category, device_id ON messages
      WHEN ${keyChanged.join(' OR ')}
      BEGIN ${countOut('OLD')} ${countIn('NEW')} END`)
  }

  async down() {
    for (const trigger of ['on_move', 'on_status', 'on_delete', 'on_insert']) this.schema.raw(`DROP TRIGGER IF EXISTS message_volume_${trigger}`)
    this.schema.raw('DROP TABLE IF EXISTS message_volume')
  }
}
