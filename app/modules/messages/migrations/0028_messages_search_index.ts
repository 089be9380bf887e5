import { BaseSchema } from '@adonisjs/lucid/schema'

/**
 * The search index of messages (docs/sending.md, Search): an FTS5 table over each
 * message's text and number, kept by triggers on `messages`, filled here for the rows already
 * stored (a restored older backup is upgraded at restart the same way).
 *
 * Contentless (`content=''`): the text is in `messages` already, a copy would double the writes.
 * `contentless_delete=1` lets a trigger delete a row by its id alone. `detail=none` keeps no
 * positions: a search is words and number parts that must all match, never a phrase, so
 * positions would be written and never read.
 *
 * The text is cut into words (`unicode61`, case and accents folded). The number is indexed as
 * its digits' suffixes of 3 digits or more ("33612345678 3612345678 … 678"): a search by a
 * part of a number is a prefix query on them, so a middle part, the last digits or the whole
 * number with or without + all match. The `trigram` tokenizer would find the same parts, but
 * over the text it writes a token per character instead of a word, and it finds nothing under
 * three characters.
 *
 * The triggers fire on an insert, a delete and a change of `body` or `phone` only: a change of
 * status, the hot path of the ledger, never touches the index.
 */
const numberTokens = (phone: string) => {
  const digits = `replace(${phone}, '+', '')`
  // E.164 numbers have at most 15 digits: 13 suffixes of 3 digits or more.
  return Array.from({ length: 13 }, (_, index) => `iif(length(${digits}) >= ${index + 3}, substr(${digits}, ${index + 1}) || ' ', '')`).join(' || ')
}

export default class extends BaseSchema {
  async up() {
    this.schema.raw(
      `CREATE VIRTUAL TABLE messages_search USING fts5(body, number, content='', contentless_delete=1, detail=none, tokenize='unicode61 remove_diacritics 2')`
    )
    this.schema.raw(`INSERT INTO messages_search (rowid, body, number) SELECT id, body, ${numberTokens('phone')} FROM messages`)
    this.schema.raw(
      `CREATE TRIGGER messages_search_insert AFTER INSERT ON messages BEGIN
         INSERT INTO messages_search (rowid, body, number) VALUES (NEW.id, NEW.body, ${numberTokens('NEW.phone')});
       END`
    )
    this.schema.raw(
      `CREATE TRIGGER messages_search_delete AFTER DELETE ON messages BEGIN
         DELETE FROM messages_search WHERE rowid = OLD.id;
       END`
    )
    this.schema.raw(
      `CREATE TRIGGER messages_search_update AFTER UPDATE OF body, phone ON messages BEGIN
         DELETE FROM messages_search WHERE rowid = OLD.id;
         INSERT INTO messages_search (rowid, body, number) VALUES (NEW.id, NEW.body, ${numberTokens('NEW.phone')});
       END`
    )
  }

  async down() {
    this.schema.raw('DROP TRIGGER IF EXISTS messages_search_update')
    this.schema.raw('DROP TRIGGER IF EXISTS messages_search_delete')
    this.schema.raw('DROP TRIGGER IF EXISTS messages_search_insert')
    this.schema.raw('DROP TABLE IF EXISTS messages_search')
  }
}
