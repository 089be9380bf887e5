import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * The license gate's one row: its state, the key sealed with the master key, and when the
 * license server was last asked and last answered. Kept in the database so a restart keeps a
 * withdrawn license withdrawn.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.createTable('license_state', (table) => {
      // Always 1: there is one license per gateway.
      table.integer('id').primary()
      table.string('state').notNullable()
      table.text('key_sealed').nullable()
      // The first four characters, in clear: they name the key in events and in GET /license,
      // and tell the operator which key to enter again when the sealed one no longer opens.
      table.string('key_prefix').nullable()
      table.string('last_checked_at').nullable()
      table.string('last_answer_at').nullable()
      table.string('updated_at').notNullable()
    })
  }

  async down() {
    this.schema.dropTable('license_state')
  }
}
