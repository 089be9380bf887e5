import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Automation rules on incoming SMS, the log of their runs, and the queue's cursor: the id of the
 * last inbound message the rules have been planned for (docs/automation.md, Durable queue).
 */
export default class extends BaseSchema {
  async up() {
    this.schema.createTable('automation_rules', (table) => {
      table.increments('id')
      table.string('name', 100).notNullable().unique()
      table.boolean('enabled').notNullable().defaultTo(true)
      table.integer('position').notNullable()
      table.boolean('stop_after').notNullable().defaultTo(false)
      table.text('conditions').notNullable().defaultTo('[]')
      table.text('actions').notNullable().defaultTo('[]')
      /** The URL call's secret, sealed with the master key; null while the rule calls no URL. */
      table.text('call_secret_sealed').nullable()
      table.string('created_at').notNullable()
      table.string('updated_at').notNullable()
      table.index(['position', 'id'])
    })

    this.schema.createTable('automation_rule_runs', (table) => {
      table.increments('id')
      /** null for a built-in opt-out keyword; kept when the rule is deleted (its name stays). */
      table.integer('rule_id').nullable()
      table.string('rule_name', 100).notNullable()
      /** rule or keyword */
      table.string('kind', 10).notNullable()
      table.integer('message_id').notNullable()
      table.integer('conversation_id').notNullable()
      /** The sender, for the actions (replies, contact changes); answered masked only. */
      table.string('phone', 16).notNullable()
      table.string('device_id').nullable()
      table.integer('sim_slot').nullable()
      /** pending (planned, actions not all done) or done */
      table.string('status', 10).notNullable()
      /** Planned actions with, once run, each one's outcome. */
      table.text('actions').notNullable()
      table.integer('replies').notNullable().defaultTo(0)
      table.string('created_at').notNullable()
      table.string('finished_at').nullable()
      table.unique(['message_id', 'rule_id', 'kind'])
      table.index(['status', 'id'])
      table.index(['created_at', 'id'])
      table.index(['rule_id', 'created_at', 'id'])
      table.index(['phone', 'created_at'])
    })

    this.schema.createTable('automation_state', (table) => {
      table.integer('id').primary()
      table.integer('last_message_id').notNullable()
    })
    // Rules run on what arrives from now on, never on the messages received before the upgrade.
    this.defer(async (db) => {
      await db.rawQuery(`INSERT INTO automation_state (id, last_message_id) SELECT 1, COALESCE(MAX(id), 0) FROM messages`)
    })
  }

  async down() {
    this.schema.dropTable('automation_state')
    this.schema.dropTable('automation_rule_runs')
    this.schema.dropTable('automation_rules')
  }
}
