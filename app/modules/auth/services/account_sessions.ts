import type { QueryClientContract } from '@adonisjs/lucid/types/database'

/**
 * Dashboard sessions are rows of the `sessions` table in gateway.db (config/session.ts), tagged
 * with their account's id at sign-in (`user_id`). The session is read from its row on every
 * request, so deleting the row signs that browser out at its next request, whichever process
 * deleted it (the server, or `node ace user:reset-password` beside it).
 *
 * Answers how many sessions ended. `except`: the id of a session to keep (the caller's own).
 */
export async function endSessionsOf(client: QueryClientContract, userId: number, except?: string): Promise<number> {
  const sessions = client.from('sessions').where('user_id', String(userId))
  if (except) sessions.whereNot('id', except)
  return Number(await sessions.delete())
}
