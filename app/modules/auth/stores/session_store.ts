import db from '@adonisjs/lucid/services/db'
import type { QueryClientContract } from '@adonisjs/lucid/types/database'

/** A session row as the live streams' review reads it. */
export interface StoredSession {
  id: string
  user_id: string | null
  expires_at: unknown
}

/**
 * The `sessions` table, in the query builder (docs/modules.md, Data access). Dashboard sessions
 * are its rows in gateway.db (config/session.ts), written by the session middleware and tagged
 * with their account's id at sign-in (`user_id`). The session is read from its row on every
 * request, so deleting the row signs that browser out at its next request, whichever process
 * deleted it (the server, or `node ace user:reset-password` beside it).
 */
export class SessionStore {
  /**
   * Ends the account's sessions, in the caller's transaction (null: on its own); answers how many
   * ended. `except`: the id of a session to keep (the caller's own).
   */
  async endSessionsOf(client: QueryClientContract | null, userId: number, except?: string): Promise<number> {
    const sessions = (client ?? db.connection()).from('sessions').where('user_id', String(userId))
    if (except) sessions.whereNot('id', except)
    return Number(await sessions.delete())
  }

  /** The rows of these sessions that are still there (expired ones included). */
  async rowsOf(ids: string[]): Promise<StoredSession[]> {
    return db.from('sessions').whereIn('id', ids).select('id', 'user_id', 'expires_at')
  }
}
