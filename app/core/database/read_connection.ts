import db from '@adonisjs/lucid/services/db'
import { READ_CONNECTION } from '#config/database'

/**
 * The second, read-only connection to the same SQLite file (config/database.ts). Statements on
 * one `sqlite3` connection run one at a time, so a read queued behind a batch of writes waits
 * for all of them; in WAL mode a second connection reads the last committed state
 * beside the writer, on another thread of the pool. Meant for the few reads on a latency path
 * (the dispatcher's pass between a send and its order), not for reads in general: most reads
 * follow a write of their own request, and one connection keeps that order simple.
 */
export function readConnection() {
  return db.connection(READ_CONNECTION)
}

/**
 * Closes the read connection, first at shutdown: SQLite folds the WAL back and removes the
 * `-wal` and `-shm` files when the last connection closes, which the read-only one cannot do.
 * Closed before the writer, the writer is the last and leaves gateway.db whole and alone.
 */
export async function closeReadConnection(): Promise<void> {
  if (db.manager.isConnected(READ_CONNECTION)) await db.manager.close(READ_CONNECTION)
}
