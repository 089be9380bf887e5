import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * Every backup attempt, failures included (spec, Backup attempt). A file in backups/ with an
 * attempt row is journalled (Scheduled or Manual); one without is Imported.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.createTable('backup_attempts', (table) => {
      table.increments('id')
      // The file written; kept on a failed attempt too (the file itself was deleted).
      table.string('name', 200).notNullable()
      table.string('origin', 10).notNullable()
      table.string('outcome', 10).notNullable()
      table.string('reason', 200).nullable()
      table.bigInteger('size').nullable()
      table.string('started_at').notNullable()
      table.string('finished_at').notNullable()
      table.index(['started_at', 'id'])
      table.index(['name'])
    })
  }

  async down() {
    this.schema.dropTable('backup_attempts')
  }
}
