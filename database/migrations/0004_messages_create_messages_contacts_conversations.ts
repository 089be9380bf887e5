import { BaseSchema } from '@adonisjs/lucid/schema'

/** Messages, the contacts and conversations they belong to, short links and idempotency keys. */
export default class extends BaseSchema {
  async up() {
    this.schema.createTable('contacts', (table) => {
      table.increments('id')
      table.string('phone', 16).notNullable().unique()
      table.string('first_name', 100).nullable()
      table.string('last_name', 100).nullable()
      table.string('company', 200).nullable()
      table.string('email', 254).nullable()
      table.text('notes').nullable()
      table.text('tags').notNullable().defaultTo('[]')
      // The opt-out flag: a blacklisted number is never sent to.
      table.boolean('blacklisted').notNullable().defaultTo(false)
      table.string('created_at').notNullable()
      table.string('updated_at').notNullable()
      table.index(['created_at', 'id'])
    })

    this.schema.createTable('conversations', (table) => {
      table.increments('id')
      table.string('phone', 16).notNullable().unique()
      table.integer('contact_id').unsigned().nullable().references('id').inTable('contacts').onDelete('SET NULL')
      table.string('state').notNullable()
      table.integer('unread_count').notNullable().defaultTo(0)
      table.boolean('pinned').notNullable().defaultTo(false)
      table.boolean('archived').notNullable().defaultTo(false)
      table.integer('assigned_to').nullable()
      // The category of the last message sent: an inbound SMS takes it (spec, Message resource).
      table.string('category').notNullable()
      table.string('created_at').notNullable()
      table.string('last_message_at').notNullable()
      table.index(['last_message_at', 'id'])
    })

    this.schema.createTable('messages', (table) => {
      table.increments('id')
      table.integer('conversation_id').unsigned().notNullable().references('id').inTable('conversations').onDelete('CASCADE')
      table.string('direction', 3).notNullable()
      table.string('category').notNullable()
      table.string('phone', 16).notNullable()
      table.text('body').notNullable()
      table.string('encoding', 4).notNullable()
      table.integer('segments').notNullable()
      table.string('status').notNullable()
      table.integer('attempts').notNullable().defaultTo(0)
      table.string('error_code').nullable()
      table.string('hold_reason').nullable()
      table.string('held_until').nullable()
      table.string('device_id').nullable()
      table.integer('sim_slot').nullable()
      table.string('scheduled_at').nullable()
      table.string('created_at').notNullable()
      table.string('updated_at').notNullable()
      table.string('sent_at').nullable()
      table.string('delivered_at').nullable()
      table.string('failed_at').nullable()
      // Newest-first pages, overall and per conversation, and the dispatcher's due queue.
      table.index(['created_at', 'id'])
      table.index(['conversation_id', 'created_at', 'id'])
      table.index(['status', 'created_at', 'id'])
      table.index(['phone', 'created_at', 'id'])
    })

    this.schema.createTable('links', (table) => {
      table.increments('id')
      table.string('code', 16).notNullable().unique()
      table.text('url').notNullable()
      table.integer('clicks').notNullable().defaultTo(0)
      table.string('created_at').notNullable()
      table.index(['created_at', 'id'])
    })

    // Spec, Idempotency rules: a key belongs to its caller and lives 24 hours.
    this.schema.createTable('idempotency_keys', (table) => {
      table.string('caller').notNullable()
      table.string('key', 128).notNullable()
      table.string('request_hash', 64).notNullable()
      table.integer('response_status').notNullable()
      table.text('response_body').notNullable()
      table.string('created_at').notNullable()
      table.string('expires_at').notNullable().index()
      table.primary(['caller', 'key'])
    })
  }

  async down() {
    this.schema.dropTable('idempotency_keys')
    this.schema.dropTable('links')
    this.schema.dropTable('messages')
    this.schema.dropTable('conversations')
    this.schema.dropTable('contacts')
  }
}
