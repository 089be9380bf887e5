import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * The SMSGate app's side of a paired phone (docs/smsgate.md): its bearer token as a SHA-256
 * fingerprint (the token is shown to the app once and never stored), the login and password it
 * shows (the password as a fingerprint too), whether it gave a Firebase push token, the secrets
 * of its own webhook path and signing key (sealed with the master key), and the SIMs as it last
 * reported them (masked by the app). The row goes with the device (`devices` is made by
 * database/migrations, which a module's migration may rely on).
 */
export default class extends BaseSchema {
  async up() {
    this.schema.createTable('smsgate_devices', (table) => {
      table.integer('device_id').primary().references('id').inTable('devices').onDelete('CASCADE')
      table.string('token_sha256', 64).notNullable().unique()
      table.string('login', 20).notNullable()
      table.string('password_sha256', 64).notNullable()
      table.boolean('push_token_set').notNullable().defaultTo(false)
      table.text('webhook_path_sealed').notNullable()
      table.text('signing_key_sealed').notNullable()
      table.text('sim_cards').notNullable().defaultTo('[]')
      table.string('created_at').notNullable()
      table.string('updated_at').notNullable()
    })
  }

  async down() {
    this.schema.dropTable('smsgate_devices')
  }
}
