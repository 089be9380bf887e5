import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Campaigns and their recipients. The audience is resolved once, at launch, into one recipient
 * row per number (the text rendered for it then): the engine turns pending rows into messages a
 * few at a time, each row and its message written in one transaction.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.createTable('campaigns', (table) => {
      table.increments('id')
      table.string('name', 200).notNullable()
      table.string('status', 20).notNullable()
      table.text('body').nullable()
      table.integer('template_id').unsigned().nullable()
      table.text('audience').notNullable()
      table.string('device_id').nullable()
      table.integer('sim_slot').nullable()
      table.string('start_at').nullable()
      table.integer('throttle_per_minute').nullable()
      table.integer('run').notNullable().defaultTo(0)
      /** The audience was read into recipients (launch answers first, the job resolves). */
      table.boolean('resolved').notNullable().defaultTo(false)
      table.integer('total').notNullable().defaultTo(0)
      table.integer('excluded_opted_out').notNullable().defaultTo(0)
      table.integer('excluded_duplicates').notNullable().defaultTo(0)
      table.integer('excluded_invalid').notNullable().defaultTo(0)
      /** Messages the throttle allows that were not materialised yet (fractions of one). */
      table.float('throttle_credit').notNullable().defaultTo(0)
      table.string('last_pass_at').nullable()
      /** The send window or night pause holds the backlog (paused by the engine, not by a person). */
      table.boolean('window_held').notNullable().defaultTo(false)
      table.string('resumes_at').nullable()
      /** A cancel's messages and pending rows are all withdrawn (a restart finishes one cut short). */
      table.boolean('settled').notNullable().defaultTo(true)
      table.string('created_at').notNullable()
      table.string('updated_at').notNullable()
      table.string('launched_at').nullable()
      table.string('completed_at').nullable()
      table.string('cancelled_at').nullable()
      table.index(['created_at', 'id'])
      table.index(['status'])
    })

    this.schema.createTable('campaign_recipients', (table) => {
      table.increments('id')
      table.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE')
      table.integer('run').notNullable()
      table.integer('contact_id').unsigned().nullable()
      table.string('phone', 32).notNullable()
      table.text('body').notNullable()
      table.string('status', 30).notNullable()
      table.string('error_code', 64).nullable()
      table.integer('message_id').unsigned().nullable()
      /** A failed row another run retried: kept for history, left out of the counts. */
      table.boolean('replaced').notNullable().defaultTo(false)
      table.string('updated_at').notNullable()
      // Counts (one GROUP BY), the next pending rows, and the list filtered by status.
      table.index(['campaign_id', 'replaced', 'status', 'id'])
      table.index(['campaign_id', 'id'])
      table.unique(['message_id'])
    })
  }

  async down() {
    this.schema.dropTable('campaign_recipients')
    this.schema.dropTable('campaigns')
  }
}
