import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * When each SIM was last handed SMS (a JSON array of epoch milliseconds, oldest first): what the
 * minimum interval and the per-minute limit per SIM are judged on. On the SIM's row rather than
 * in memory, so a restart does not let a SIM send early.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.alterTable('device_sims', (table) => {
      table.text('recent_orders').notNullable().defaultTo('[]')
    })
  }

  async down() {
    this.schema.alterTable('device_sims', (table) => {
      table.dropColumn('recent_orders')
    })
  }
}
