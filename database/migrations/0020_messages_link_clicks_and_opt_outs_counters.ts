import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Two more counters for the statistics endpoints (docs/statistics.md), per quarter hour (UTC
 * epoch seconds, multiple of 900) so that local days and hours of any zone are whole runs of slots:
 *
 * - `link_click_counts`: clicks per short link and quarter hour, written by LinkClicks.follow
 *   with the click (links.clicks stays the total). Clicks from before this migration have no
 *   time: they stay in links.clicks only.
 * - `contact_opt_changes`: numbers opted out (contacts.blacklisted set) and back in (cleared)
 *   per quarter hour, kept by triggers on contacts whoever changes the flag (the contacts API,
 *   an import, an opt-out keyword). A contact created opted out counts as an opt-out at its
 *   creation; deleting a contact leaves the history as it was. The backfill counts each contact
 *   opted out today once, at its last change (updated_at), the best a database without history
 *   can say.
 */
const slotOf = (column: string) => `CAST(strftime('%s', ${column}) AS INTEGER) / 900 * 900`

export default class extends BaseSchema {
  async up() {
    this.schema.raw(`CREATE TABLE link_click_counts (
      slot INTEGER NOT NULL,
      link_id INTEGER NOT NULL,
      clicks INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (slot, link_id)
    ) WITHOUT ROWID`)
    this.schema.raw('CREATE INDEX link_click_counts_link_slot ON link_click_counts (link_id, slot)')

    this.schema.raw(`CREATE TABLE contact_opt_changes (
      slot INTEGER NOT NULL PRIMARY KEY,
      opted_out INTEGER NOT NULL DEFAULT 0,
      opted_in INTEGER NOT NULL DEFAULT 0
    ) WITHOUT ROWID`)
    this.schema.raw(`INSERT INTO contact_opt_changes (slot, opted_out)
      SELECT ${slotOf('updated_at')}, COUNT(*) FROM contacts WHERE blacklisted = 1 GROUP BY 1`)
    this.schema.raw(`CREATE TRIGGER contact_opt_changes_on_insert AFTER INSERT ON contacts WHEN NEW.blacklisted = 1
      BEGIN
        INSERT INTO contact_opt_changes (slot, opted_out) VALUES (${slotOf('NEW.created_at')}, 1)
          ON CONFLICT (slot) DO UPDATE SET opted_out = opted_out + 1;
      END`)
    this.schema.raw(`CREATE TRIGGER contact_opt_changes_on_update AFTER UPDATE OF blacklisted ON contacts
      WHEN (OLD.blacklisted = 1) IS NOT (NEW.blacklisted = 1)
      BEGIN
        INSERT INTO contact_opt_changes (slot, opted_out, opted_in)
          VALUES (${slotOf('NEW.updated_at')}, NEW.blacklisted = 1, OLD.blacklisted = 1)
          ON CONFLICT (slot) DO UPDATE SET opted_out = opted_out + excluded.opted_out, opted_in = opted_in + excluded.opted_in;
      END`)
  }

  async down() {
    this.schema.raw('DROP TRIGGER IF EXISTS contact_opt_changes_on_update')
    this.schema.raw('DROP TRIGGER IF EXISTS contact_opt_changes_on_insert')
    this.schema.raw('DROP TABLE IF EXISTS contact_opt_changes')
    this.schema.raw('DROP TABLE IF EXISTS link_click_counts')
  }
}
