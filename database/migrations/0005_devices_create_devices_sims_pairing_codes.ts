import { BaseSchema } from '@adonisjs/lucid/schema'

/** Paired phones, their SIMs, and the one-time codes that pair them. */
export default class extends BaseSchema {
  async up() {
    this.schema.createTable('devices', (table) => {
      table.increments('id')
      table.string('name', 80).notNullable()
      table.string('model', 120).nullable()
      table.string('app_version', 40).nullable()
      // The device credential's secret, sealed with the master key: a database restored
      // without secret.key cannot reveal it, so every phone pairs again (spec, master key rules).
      table.text('credential_sealed').notNullable()
      table.boolean('enabled').notNullable().defaultTo(true)
      table.string('status').notNullable().defaultTo('offline')
      table.string('last_seen_at').nullable()
      table.integer('battery_level').nullable()
      table.boolean('battery_charging').nullable()
      table.integer('signal').nullable()
      // Per-phone text options; null fields follow Settings > General.
      table.text('text_options').notNullable().defaultTo('{}')
      table.string('created_at').notNullable()
      table.string('updated_at').notNullable()
    })

    this.schema.createTable('device_sims', (table) => {
      table.integer('device_id').unsigned().notNullable().references('id').inTable('devices').onDelete('CASCADE')
      table.integer('slot').notNullable()
      table.string('label', 40).nullable()
      table.string('operator', 60).nullable()
      table.string('number', 16).nullable()
      table.integer('daily_quota').nullable()
      table.integer('sent_today').notNullable().defaultTo(0)
      // The platform-time-zone day sent_today counts.
      table.string('sent_day', 10).nullable()
      table.primary(['device_id', 'slot'])
    })

    this.schema.createTable('pairing_codes', (table) => {
      // SHA-256 of the code: the code itself is shown once and never stored.
      table.string('code_hash', 64).primary()
      table.string('created_at').notNullable()
      table.string('expires_at').notNullable()
      table.string('used_at').nullable()
    })
  }

  async down() {
    this.schema.dropTable('pairing_codes')
    this.schema.dropTable('device_sims')
    this.schema.dropTable('devices')
  }
}
