import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * The Activity log's filters (issue 16): what kind of fact an entry is (`apikey.created`,
 * `device.paired`, `settings.changed`...) and who did it (`account:3`, `api_key:5`; null: the
 * gateway itself), with the name they had then.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.alterTable('activity_entries', (table) => {
      table.string('kind', 60).nullable()
      table.string('actor', 40).nullable()
      table.string('actor_name', 120).nullable()
      table.index(['kind', 'created_at', 'id'])
      table.index(['actor', 'created_at', 'id'])
    })
    // Entries written before kinds existed are known by their module only.
    this.defer(async (db) => {
      await db.rawQuery(`UPDATE activity_entries SET kind = source || '.other' WHERE kind IS NULL`)
    })
  }

  async down() {
    this.schema.alterTable('activity_entries', (table) => {
      table.dropIndex(['kind', 'created_at', 'id'])
      table.dropIndex(['actor', 'created_at', 'id'])
      table.dropColumn('kind')
      table.dropColumn('actor')
      table.dropColumn('actor_name')
    })
  }
}
