import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * What the dispatcher needs on messages: the phone and SIM a send forced (deviceId/simSlot of
 * the request), when an order went to a phone (until the phone accepts it), and the phone's own
 * reference of an inbound SMS (a repeated report stores it once).
 *
 * Written before the one-owner rule (docs/modules.md): these are columns of the messages
 * module's table, read and written only by its MessageLedger. The file keeps its name because
 * databases record applied migrations by name; a new column of `messages` goes in a
 * `..._messages_...` migration.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.alterTable('messages', (table) => {
      table.integer('forced_device_id').nullable()
      table.integer('forced_sim_slot').nullable()
      table.string('ordered_at').nullable()
      table.string('inbound_ref', 100).nullable()
    })
    this.schema.raw('CREATE UNIQUE INDEX messages_inbound_ref ON messages (device_id, inbound_ref) WHERE inbound_ref IS NOT NULL')
    this.schema.raw("CREATE INDEX messages_due ON messages (created_at, id) WHERE status = 'queued' AND direction = 'out'")
  }

  async down() {
    this.schema.raw('DROP INDEX messages_due')
    this.schema.raw('DROP INDEX messages_inbound_ref')
    this.schema.alterTable('messages', (table) => {
      table.dropColumn('inbound_ref')
      table.dropColumn('ordered_at')
      table.dropColumn('forced_sim_slot')
      table.dropColumn('forced_device_id')
    })
  }
}
