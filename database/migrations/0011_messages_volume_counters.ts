import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Message counts per quarter hour of creation, by direction, current status, category and phone,
 * kept by triggers as messages are inserted, change state and are deleted (docs/statistics.md).
 *
 * Why counters and not an index: counting a week of a million messages through any index walks
 * every one of their index entries (about half a second here), far from the 100 ms a statistics
 * answer may take. Quarter hours, because every time zone in use today is a whole number of
 * quarter hours away from UTC: a local hour or day is always a run of whole slots.
 *
 * Triggers rather than code in the ledger: every path that changes a message (the ledger's batch
 * statements, deletions, conversation cascades, a test's raw update) keeps the counts right,
 * and a restored older backup gets them from the backfill below when it is upgraded.
 */
const slotOf = (row: 'NEW' | 'OLD') => `CAST(strftime('%s', ${row}.created_at) AS INTEGER) / 900 * 900`
const keyOf = (row: 'NEW' | 'OLD') => `${slotOf(row)}, ${row}.direction, ${row}.status, ${row}.category, COALESCE(${row}.device_id, '')`
const countIn = (row: 'NEW' | 'OLD') =>
  `INSERT INTO message_volume (slot, direction, status, category, device_id, count) VALUES (${keyOf(row)}, 1)
     ON CONFLICT (slot, direction, status, category, device_id) DO UPDATE SET count = count + 1;`
const countOut = (row: 'NEW' | 'OLD') =>
  `UPDATE message_volume SET count = count - 1
     WHERE slot = ${slotOf(row)} AND direction = ${row}.direction AND status = ${row}.status
       AND category = ${row}.category AND device_id = COALESCE(${row}.device_id, '');`

export default class extends BaseSchema {
  async up() {
    // WITHOUT ROWID: the key is the table, so a range of slots is one seek and a sequential read.
    // device_id '' is "no phone yet" (NULLs never conflict in a unique key).
    this.schema.raw(`CREATE TABLE message_volume (
      slot INTEGER NOT NULL,
      direction TEXT NOT NULL,
      status TEXT NOT NULL,
      category TEXT NOT NULL,
      device_id TEXT NOT NULL,
      count INTEGER NOT NULL,
      PRIMARY KEY (slot, direction, status, category, device_id)
    ) WITHOUT ROWID`)
    this.schema.raw(`INSERT INTO message_volume (slot, direction, status, category, device_id, count)
      SELECT ${slotOf('NEW').replaceAll('NEW.', '')}, direction, status, category, COALESCE(device_id, ''), COUNT(*)
        FROM messages GROUP BY 1, 2, 3, 4, 5`)
    this.schema.raw(`CREATE TRIGGER message_volume_on_insert AFTER INSERT ON messages BEGIN ${countIn('NEW')} END`)
    this.schema.raw(`CREATE TRIGGER message_volume_on_delete AFTER DELETE ON messages BEGIN ${countOut('OLD')} END`)
    // Only a change of a counted column moves a count: a retry's attempts or a timestamp does not.
    this.schema.raw(`CREATE TRIGGER message_volume_on_update
      AFTER UPDATE OF created_at, direction, status, category, device_id ON messages
      WHEN OLD.created_at IS NOT NEW.created_at OR OLD.direction IS NOT NEW.direction OR OLD.status IS NOT NEW.status
        OR OLD.category IS NOT NEW.category OR OLD.device_id IS NOT NEW.device_id
      BEGIN ${countOut('OLD')} ${countIn('NEW')} END`)
  }

  async down() {
    this.schema.raw('DROP TRIGGER IF EXISTS message_volume_on_update')
    this.schema.raw('DROP TRIGGER IF EXISTS message_volume_on_delete')
    this.schema.raw('DROP TRIGGER IF EXISTS message_volume_on_insert')
    this.schema.raw('DROP TABLE IF EXISTS message_volume')
  }
}
