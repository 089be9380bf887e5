import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Who made a pairing code (`account:3` or `api_key:5`, with the name then): the phone that pairs
 * with it is recorded in the Activity log in their name.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.alterTable('pairing_codes', (table) => {
      table.string('created_by', 40).nullable()
      table.string('created_by_name', 120).nullable()
    })
  }

  async down() {
    this.schema.alterTable('pairing_codes', (table) => {
      table.dropColumn('created_by')
      table.dropColumn('created_by_name')
    })
  }
}
