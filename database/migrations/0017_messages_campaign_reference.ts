import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * A message queued by a campaign names it, so GET /messages?campaignId= lists a campaign's
 * messages and the campaign's pause, resume and cancel find theirs by index.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.alterTable('messages', (table) => {
      table.integer('campaign_id').unsigned().nullable()
      table.index(['campaign_id', 'status'])
    })
  }

  async down() {
    this.schema.alterTable('messages', (table) => {
      table.dropIndex(['campaign_id', 'status'])
      table.dropColumn('campaign_id')
    })
  }
}
