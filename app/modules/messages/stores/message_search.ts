import db from '@adonisjs/lucid/services/db'
import { ApiError } from '#core/http/api_error'

/** A condition on `messages` for the list's query (`whereRaw`). */
export interface SearchCondition {
  sql: string
  bindings: unknown[]
}

/** Written like a number: +, digits, spaces, dashes, dots, brackets (the contacts' search says the same). */
const LOOKS_LIKE_A_NUMBER = /^[+\d\s().-]*\d[\d\s().-]*$/

/**
 * Up to this many matches, a page is read by their ids and sorted; past it, by walking the
 * messages newest first and asking the index about each (docs/sending.md, Search).
 */
const FEW_MATCHES = 1000

/** At most this many words; the rest of a longer query is refused rather than silently dropped. */
export const MAX_SEARCH_WORDS = 8

/**
 * The FTS5 query of what a person typed: each word a quoted FTS5 string (so nothing typed is
 * FTS5 syntax), all of them to match. A word is a run of letters and digits, as the index's
 * `unicode61` tokenizer cuts the text, so a quoted word never holds two tokens (a phrase, which
 * the index's `detail=none` refuses). Digits alone are a prefix query: a part of a number
 * (the index holds its suffixes) or the start of a number in the text. A query written like a
 * number is one part, its spaces and dashes dropped.
 */
export function searchExpression(q: string): { match: string; prefix: boolean } {
  const words = LOOKS_LIKE_A_NUMBER.test(q) ? [q.replace(/\D/g, '')] : q.normalize('NFKC').replace(/\p{M}/gu, '').split(/[^\p{L}\p{N}]+/u).filter(Boolean)
  if (words.length === 0) throw ApiError.validation('q', 'search', 'q must hold at least one letter or digit')
  if (words.length > MAX_SEARCH_WORDS) throw ApiError.validation('q', 'search', `q may hold at most ${MAX_SEARCH_WORDS} words`)
  const terms = words.map((word) => (/^\d+$/.test(word) ? `"${word}"*` : `"${word.replaceAll('"', '""')}"`))
  return { match: terms.join(' AND '), prefix: terms.some((term) => term.endsWith('*')) }
}

/**
 * The search index of messages (`messages_search`, FTS5, kept by the triggers of migration
 * 0028): SQL text. It answers conditions for the list's query and what the conversations list
 * needs (the conversations matching, the first words of their last messages).
 */
export class MessageSearchStore {
  /**
   * The messages matching `q` by their text or number, or sent to or received from one of
   * `phones` (a contact's numbers matched by name). Few matches: their ids, looked up and
   * sorted. Many: the list walks its (created_at, id) index and asks the index about each
   * message; a query with a prefix asks through the set of its matches, read once, since a
   * prefix query reads every term it covers on each question.
   */
  async condition(q: string, phones: string[]): Promise<SearchCondition> {
    const { match, prefix } = searchExpression(q)
    const ids = (await this.#matches(match, FEW_MATCHES + 1)).map((row) => row.rowid)
    const byPhone = `messages.phone IN (SELECT value FROM json_each(?))`
    if (ids.length <= FEW_MATCHES) {
      return {
        sql: `messages.id IN (SELECT value FROM json_each(?) UNION SELECT id FROM messages WHERE ${byPhone})`,
        bindings: [JSON.stringify(ids), JSON.stringify(phones)],
      }
    }
    const indexed = prefix
      ? `+messages.id IN (SELECT rowid FROM messages_search WHERE messages_search MATCH ?)`
      : `EXISTS (SELECT 1 FROM messages_search WHERE messages_search MATCH ? AND rowid = messages.id)`
    return { sql: `(${indexed} OR ${byPhone})`, bindings: [match, JSON.stringify(phones)] }
  }

  /** The conversations holding a message whose text or number matches `q`. */
  async conversationsMatching(q: string): Promise<number[]> {
    const { match } = searchExpression(q)
    const rows: Array<{ conversation_id: number }> = await db.rawQuery(
      `SELECT DISTINCT conversation_id FROM messages WHERE id IN (SELECT rowid FROM messages_search WHERE messages_search MATCH ?)`,
      [match]
    )
    return rows.map((row) => row.conversation_id)
  }

  /** The start of each conversation's last message (the text, its first `length` characters). */
  async lastMessageStarts(conversationIds: number[], length: number): Promise<Map<number, string>> {
    if (conversationIds.length === 0) return new Map()
    const rows: Array<{ conversation_id: number; start: string }> = await db.rawQuery(
      `SELECT j.value AS conversation_id,
              (SELECT substr(body, 1, ?) FROM messages WHERE conversation_id = j.value ORDER BY created_at DESC, id DESC LIMIT 1) AS start
         FROM json_each(?) j`,
      [length, JSON.stringify(conversationIds)]
    )
    return new Map(rows.filter((row) => row.start !== null).map((row) => [Number(row.conversation_id), row.start]))
  }

  async #matches(match: string, limit: number): Promise<Array<{ rowid: number }>> {
    try {
      return await db.rawQuery(`SELECT rowid FROM messages_search WHERE messages_search MATCH ? LIMIT ?`, [match, limit])
    } catch (error) {
      // A word the tokenizer cuts where the expression did not (a character of a newer Unicode):
      // the person's input, refused as such rather than answered as a failure of the gateway.
      if (/fts5/i.test(String((error as Error).message))) throw ApiError.validation('q', 'search', 'q holds a character the search cannot read')
      throw error
    }
  }
}
