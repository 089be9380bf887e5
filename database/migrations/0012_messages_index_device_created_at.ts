import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * The Messages page filters by phone (GET /messages?deviceId=): newest-first pages of one phone
 * seek here instead of walking every newer message of the other phones.
 */
export default class extends BaseSchema {
  async up() {
    this.schema.raw('CREATE INDEX IF NOT EXISTS messages_device_created_at_id ON messages (device_id, created_at, id)')
  }

  async down() {
    this.schema.raw('DROP INDEX IF EXISTS messages_device_created_at_id')
  }
}
