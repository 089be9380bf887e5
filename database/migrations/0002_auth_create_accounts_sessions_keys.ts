import { BaseSchema } from '@adonisjs/lucid/schema'

/** Dashboard accounts, their sessions, and the API keys of integrations. */
export default class extends BaseSchema {
  async up() {
    this.schema.createTable('users', (table) => {
      table.increments('id')
      // Stored lower-cased: addresses are unique ignoring case.
      table.string('email', 254).notNullable().unique()
      table.string('name', 80).notNullable()
      table.string('role').notNullable()
      table.string('password').notNullable()
      table.string('created_at').notNullable()
      table.string('updated_at').notNullable()
    })

    // Shape expected by @adonisjs/session's database store.
    this.schema.createTable('sessions', (table) => {
      table.string('id').primary()
      table.string('user_id').nullable().index()
      table.text('data').notNullable()
      table.bigInteger('expires_at').notNullable().index()
    })

    this.schema.createTable('api_keys', (table) => {
      table.increments('id')
      table.string('name', 80).notNullable()
      table.string('name_key', 80).notNullable().unique()
      table.string('scope').notNullable()
      // SHA-256 of the secret: the secret itself is never stored.
      table.string('fingerprint', 64).notNullable().unique()
      table.string('last_four', 4).notNullable()
      table.text('allowed_ips').notNullable()
      table.integer('calls_per_minute').nullable()
      table.integer('calls_per_day').nullable()
      table.string('created_at').notNullable()
      table.string('updated_at').notNullable()
      table.string('last_used_at').nullable()
    })

    // Calls per key and UTC day, so a daily quota survives a restart.
    this.schema.createTable('api_key_daily_usage', (table) => {
      table.integer('api_key_id').unsigned().notNullable().references('id').inTable('api_keys').onDelete('CASCADE')
      table.string('day', 10).notNullable()
      table.integer('calls').notNullable()
      table.primary(['api_key_id', 'day'])
    })
  }

  async down() {
    this.schema.dropTable('api_key_daily_usage')
    this.schema.dropTable('api_keys')
    this.schema.dropTable('sessions')
    this.schema.dropTable('users')
  }
}
