import { EventEmitter } from 'node:events'

interface TracedConnection {
  listenerCount(event: string): number
  on(event: 'trace', listener: (sql: string) => void): unknown
}

/**
 * Listens to the statements SQLite runs on a node-sqlite3 connection. node-sqlite3 switches its
 * trace on through its own `on('trace')`, and a second `on('trace')` switches it off again (the
 * switch toggles): so only the first listener goes through it, later ones are added as plain
 * listeners. Two test files tracing the one connection of the test process otherwise left the
 * second one waiting for statements it never heard of.
 */
export function onStatement(connection: TracedConnection, listener: (sql: string) => void): void {
  if (connection.listenerCount('trace') > 0) EventEmitter.prototype.on.call(connection, 'trace', listener)
  else connection.on('trace', listener)
}
