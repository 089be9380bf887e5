import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * A conversation's contact (`contact_id`, a foreign key to `contacts`, ON DELETE SET NULL): with
 * no index on it, SQLite walked every conversation for each contact deleted (the foreign key's
 * action) and for each contact whose number changed (`unlinkContact`), inside the write, a walk
 * that grows with every number the gateway ever talked to. The index is only written when a
 * conversation is made or its contact changes, not by the upsert each message makes.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.raw('CREATE INDEX IF NOT EXISTS conversations_contact_id ON conversations (contact_id)')
  }

  async down() {
    this.schema.raw('DROP INDEX IF EXISTS conversations_contact_id')
  }
}
