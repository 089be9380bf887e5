import { BaseSchema } from '@adonisjs/lucid/schema'

/** Webhook subscriptions and their delivery log (which is also the delivery queue). */
export default class extends BaseSchema {
  async up() {
    this.schema.createTable('webhooks', (table) => {
      table.increments('id')
      table.string('name', 80).notNullable()
      // Lower-cased name: unique ignoring case (spec, Webhook resource).
      table.string('name_key', 80).notNullable().unique()
      table.string('url', 2000).notNullable()
      table.string('method', 5).notNullable()
      table.text('events').notNullable()
      table.text('headers').notNullable().defaultTo('[]')
      // Sealed with the master key: restored without secret.key, it must be set again.
      table.text('secret_sealed').notNullable()
      table.boolean('active').notNullable().defaultTo(true)
      table.integer('consecutive_failures').notNullable().defaultTo(0)
      table.string('disabled_at').nullable()
      table.string('created_at').notNullable()
      table.string('updated_at').notNullable()
    })

    this.schema.createTable('webhook_deliveries', (table) => {
      table.increments('id')
      // X-Delivery-Id: random, so ids never repeat across a restore or a reinstall.
      table.string('delivery_id', 36).notNullable().unique()
      table.integer('webhook_id').unsigned().nullable().references('id').inTable('webhooks').onDelete('CASCADE')
      // A rule's call carries its own target: rules own their URL and secret.
      table.string('rule_id', 64).nullable()
      table.string('rule_name', 120).nullable()
      table.string('rule_url', 2000).nullable()
      table.text('rule_secret_sealed').nullable()
      // What deliveries share a concurrency budget with: `webhook:<id>` or `rule:<id>`.
      table.string('target_key', 80).notNullable()
      table.string('event', 40).notNullable()
      table.text('body').notNullable()
      table.string('status', 10).notNullable()
      table.integer('attempts').notNullable().defaultTo(0)
      // When the next attempt is due; null once the delivery is final.
      table.string('due_at').nullable()
      table.integer('http_status').nullable()
      table.integer('duration_ms').nullable()
      table.string('answer', 500).nullable()
      table.string('error', 200).nullable()
      table.string('created_at').notNullable()
      table.string('updated_at').notNullable()
      table.string('completed_at').nullable()
    })
    this.schema.raw("CREATE INDEX webhook_deliveries_due ON webhook_deliveries (due_at, id) WHERE status = 'pending'")
    this.schema.raw('CREATE INDEX webhook_deliveries_log ON webhook_deliveries (created_at, id)')
    this.schema.raw('CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at, id)')
  }

  async down() {
    this.schema.dropTable('webhook_deliveries')
    this.schema.dropTable('webhooks')
  }
}
