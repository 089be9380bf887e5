import { BaseSchema } from '@adonisjs/lucid/schema'

/** The shared kernel's tables: settings sections, the Activity log, background job due times. */
export default class extends BaseSchema {
  async up() {
    this.schema.createTable('settings', (table) => {
      table.string('section').primary()
      table.text('value').notNullable()
      table.string('updated_at').notNullable()
    })

    this.schema.createTable('activity_entries', (table) => {
      table.increments('id')
      table.string('level').notNullable()
      table.string('source').notNullable()
      table.text('message').notNullable()
      table.text('details').nullable()
      table.string('created_at').notNullable()
      // Keyset pagination, newest first.
      table.index(['created_at', 'id'])
    })

    this.schema.createTable('scheduled_jobs', (table) => {
      table.string('name').primary()
      table.string('due_at').nullable()
      table.string('last_started_at').nullable()
      table.string('last_finished_at').nullable()
      table.text('last_error').nullable()
    })
  }

  async down() {
    this.schema.dropTable('scheduled_jobs')
    this.schema.dropTable('activity_entries')
    this.schema.dropTable('settings')
  }
}
