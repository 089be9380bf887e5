import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * The search index's update trigger fires only when a message's text or number really changes.
 *
 * `AFTER UPDATE OF body, phone` fires whenever a statement names those columns, and every order
 * names `body` (the text as the phone's options made it), so each message's index row was deleted
 * and written again when it was handed to a phone, with the same words nearly always. The `WHEN`
 * clause keeps the rewrite for a text an option did change (docs/sending.md, Search).
 */
const numberTokens = (phone: string) => {
  const digits = `replace(${phone}, '+', '')`
  // E.164 numbers have at most 15 digits: 13 suffixes of 3 digits or more (as 0028 wrote them).
  return Array.from({ length: 13 }, (_, index) => `iif(length(${digits}) >= ${index + 3}, substr(${digits}, ${index + 1}) || ' ', '')`).join(' || ')
}

const rewrite = `BEGIN
         DELETE FROM messages_search WHERE rowid = OLD.id;
         INSERT INTO messages_search (rowid, body, number) VALUES (NEW.id, NEW.body, ${numberTokens('NEW.phone')});
       END`

export default class extends BaseSchema {
  async up() {
    this.schema.raw('DROP TRIGGER IF EXISTS messages_search_update')
    this.schema.raw(
      `CREATE TRIGGER messages_search_update AFTER UPDATE OF body, phone ON messages
       WHEN NEW.body IS NOT OLD.body OR NEW.phone IS NOT OLD.phone ${rewrite}`
    )
  }

  async down() {
    this.schema.raw('DROP TRIGGER IF EXISTS messages_search_update')
    this.schema.raw(`CREATE TRIGGER messages_search_update AFTER UPDATE OF body, phone ON messages ${rewrite}`)
  }
}
