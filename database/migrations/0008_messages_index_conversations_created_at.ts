import { BaseSchema } from '@adonisjs/lucid/schema'

/** Exports read conversations oldest first by creation: an index to seek instead of sorting. */
export default class extends BaseSchema {
  async up() {
    this.schema.raw('CREATE INDEX IF NOT EXISTS conversations_created_at_id ON conversations (created_at, id)')
  }

  async down() {
    this.schema.raw('DROP INDEX IF EXISTS conversations_created_at_id')
  }
}
