import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Contact imports from a CSV: the upload (its columns and a sample, kept until mapped), the
 * mapping, and the progress a chunk commits with its rows, so a restart resumes where the last
 * committed chunk ended. Invalid rows are kept with their reason; every contact an import made
 * or merged is recorded (a campaign may target "the contacts of import N").
 */
export default class extends BaseSchema {
  async up() {
    this.schema.createTable('contact_imports', (table) => {
      table.increments('id')
      table.string('status').notNullable()
      table.string('file_name', 255).notNullable()
      table.string('stored_file', 255).nullable()
      table.string('delimiter', 1).notNullable()
      table.text('columns').notNullable()
      table.text('sample').notNullable()
      table.text('suggested_mapping').notNullable()
      table.text('mapping').nullable()
      table.integer('group_id').unsigned().nullable().references('id').inTable('contact_groups').onDelete('SET NULL')
      table.integer('total_rows').notNullable()
      table.integer('processed_rows').notNullable().defaultTo(0)
      table.integer('created').notNullable().defaultTo(0)
      table.integer('updated').notNullable().defaultTo(0)
      table.integer('merged').notNullable().defaultTo(0)
      table.integer('invalid').notNullable().defaultTo(0)
      table.string('error', 500).nullable()
      table.string('created_at').notNullable()
      table.string('updated_at').notNullable()
      table.string('started_at').nullable()
      table.string('finished_at').nullable()
      table.index(['created_at', 'id'])
      table.index(['status'])
    })

    this.schema.createTable('contact_import_errors', (table) => {
      table.integer('import_id').unsigned().notNullable().references('id').inTable('contact_imports').onDelete('CASCADE')
      table.integer('row').notNullable()
      table.string('reason', 200).notNullable()
      table.primary(['import_id', 'row'])
    })

    this.schema.createTable('contact_import_contacts', (table) => {
      table.integer('import_id').unsigned().notNullable().references('id').inTable('contact_imports').onDelete('CASCADE')
      table.integer('contact_id').unsigned().notNullable().references('id').inTable('contacts').onDelete('CASCADE')
      table.primary(['import_id', 'contact_id'])
      table.index(['contact_id'])
    })
  }

  async down() {
    this.schema.dropTable('contact_import_contacts')
    this.schema.dropTable('contact_import_errors')
    this.schema.dropTable('contact_imports')
  }
}
