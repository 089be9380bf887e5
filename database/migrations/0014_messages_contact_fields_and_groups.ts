import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Contacts get custom fields (a CSV's extra columns, template variables such as {{city}}) and
 * groups: named sets of contacts a campaign or a rule targets. A contact may be in many groups;
 * deleting a group keeps its contacts, deleting a contact leaves its groups.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.alterTable('contacts', (table) => {
      table.text('fields').notNullable().defaultTo('{}')
    })

    this.schema.createTable('contact_groups', (table) => {
      table.increments('id')
      table.string('name', 100).notNullable().unique()
      table.string('description', 500).nullable()
      table.string('created_at').notNullable()
      table.string('updated_at').notNullable()
      table.index(['created_at', 'id'])
    })

    this.schema.createTable('contact_group_members', (table) => {
      table.integer('group_id').unsigned().notNullable().references('id').inTable('contact_groups').onDelete('CASCADE')
      table.integer('contact_id').unsigned().notNullable().references('id').inTable('contacts').onDelete('CASCADE')
      table.string('added_at').notNullable()
      table.primary(['group_id', 'contact_id'])
      // A contact's groups (the contact resource), and "remove from every group" on delete.
      table.index(['contact_id'])
    })
  }

  async down() {
    this.schema.dropTable('contact_group_members')
    this.schema.dropTable('contact_groups')
    this.schema.alterTable('contacts', (table) => {
      table.dropColumn('fields')
    })
  }
}
