import db from '@adonisjs/lucid/services/db'
import { likeContaining } from '#core/database/like_pattern'

/** At most this many contacts' numbers join a search: a name that common narrows nothing. */
export const MAX_NAMED_CONTACTS = 1000

/** The contacts found by their names (`contacts`; SQL text). */
export class ContactNameStore {
  /** The numbers of the contacts whose first or last name holds each of `words` (case-insensitive for ASCII letters), newest contact first. */
  async phonesNamed(words: string[]): Promise<string[]> {
    if (words.length === 0) return []
    const clause = words.map(() => `(first_name LIKE ? ESCAPE '\\' OR last_name LIKE ? ESCAPE '\\')`).join(' AND ')
    const rows: Array<{ phone: string }> = await db.rawQuery(`SELECT phone FROM contacts WHERE ${clause} ORDER BY id DESC LIMIT ?`, [
      ...words.flatMap((word) => [likeContaining(word), likeContaining(word)]),
      MAX_NAMED_CONTACTS,
    ])
    return rows.map((row) => row.phone)
  }
}
