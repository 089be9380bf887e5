import { BaseSchema } from '@adonisjs/lucid/schema'

/** Message templates: texts with {{variables}} that campaigns (and later rules) send. */
export default class extends BaseSchema {
  async up() {
    this.schema.createTable('message_templates', (table) => {
      table.increments('id')
      table.string('name', 100).notNullable().unique()
      table.text('body').notNullable()
      table.string('created_at').notNullable()
      table.string('updated_at').notNullable()
      table.index(['created_at', 'id'])
    })
  }

  async down() {
    this.schema.dropTable('message_templates')
  }
}
