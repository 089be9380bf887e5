import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * The Messages page filters by category and by direction (GET /messages?category=, ?direction=).
 * A rare value (no campaign yet, a gateway that mostly sends) otherwise walks every newer
 * message through the created_at index: about 5 s over a million rows for a category with no
 * message (bench/dashboard.js). With these, newest-first pages of one value seek.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.raw('CREATE INDEX IF NOT EXISTS messages_category_created_at_id ON messages (category, created_at, id)')
    this.schema.raw('CREATE INDEX IF NOT EXISTS messages_direction_created_at_id ON messages (direction, created_at, id)')
  }

  async down() {
    this.schema.raw('DROP INDEX IF EXISTS messages_category_created_at_id')
    this.schema.raw('DROP INDEX IF EXISTS messages_direction_created_at_id')
  }
}
