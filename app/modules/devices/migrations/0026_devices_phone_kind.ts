import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Which kind of phone a device was paired as (`agent`: our agent over its WebSocket;
 * `smsgate`: the SMSGate Android app over its own protocol, docs/smsgate.md), and which kind a
 * pairing code pairs: a code made for one kind cannot pair another, and one channel cannot
 * take another's device (docs/phone-channels.md). Rows made before are our agent's.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.alterTable('devices', (table) => {
      table.string('kind', 20).notNullable().defaultTo('agent')
    })
    this.schema.alterTable('pairing_codes', (table) => {
      table.string('kind', 20).notNullable().defaultTo('agent')
    })
  }

  async down() {
    this.schema.alterTable('pairing_codes', (table) => {
      table.dropColumn('kind')
    })
    this.schema.alterTable('devices', (table) => {
      table.dropColumn('kind')
    })
  }
}
