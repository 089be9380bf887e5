import { EventEmitter } from 'node:events'
import db from '@adonisjs/lucid/services/db'

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

const FROM_HERE = "SELECT 'statement count starts'"
const TO_HERE = "SELECT 'statement count ends'"
const traced = new WeakSet<object>()
let onTrace: ((sql: string) => void) | null = null

/**
 * The statements SQLite ran on the connection that writes for `work` (BEGIN and COMMIT included,
 * trigger programs not: they run inside the statement before them), between two marker
 * statements: node-sqlite3 reports a statement's trace asynchronously, so one run just before the
 * window could otherwise be reported inside it, and one of `work` after it. Each statement is
 * answered with its blanks folded and cut to 80 characters.
 */
export async function statementsRunBy(work: () => Promise<unknown>): Promise<string[]> {
  const knex = db.connection().getWriteClient()
  const connection: any = await knex.client.acquireConnection()
  await knex.client.releaseConnection(connection)
  // Listened to once per connection: node-sqlite3 does not turn its trace on again once off.
  if (!traced.has(connection)) {
    traced.add(connection)
    onStatement(connection, (sql: string) => {
      if (!sql.startsWith('--')) onTrace?.(sql.replace(/\s+/g, ' ').slice(0, 80))
    })
  }
  const statements: string[] = []
  let state: 'before' | 'counting' | 'done' = 'before'
  onTrace = (sql) => {
    if (sql === FROM_HERE) state = 'counting'
    else if (sql === TO_HERE) state = 'done'
    else if (state === 'counting') statements.push(sql)
  }
  const reached = async (wanted: typeof state) => {
    while (state !== wanted) await new Promise((resolve) => setImmediate(resolve))
  }
  try {
    await db.rawQuery(FROM_HERE)
    await reached('counting')
    await work()
    await db.rawQuery(TO_HERE)
    await reached('done')
  } finally {
    onTrace = null
  }
  return statements
}
