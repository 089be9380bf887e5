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
/** Where the trace goes while a count is open: SQLite reports a statement after running it. */
let onTrace: ((sql: string) => void) | null = null

/**
 * Each statement SQLite runs on the connection that writes goes to `listener` (blanks folded,
 * cut to 80 characters) until `work` is done and `finished()` holds; trigger programs (lines
 * starting with `--`) run inside the statement before them and are left out.
 */
async function following(listener: (sql: string) => void, work: () => Promise<unknown>, finished: () => boolean): Promise<void> {
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
  onTrace = listener
  try {
    await work()
    while (!finished()) await new Promise((resolve) => setImmediate(resolve))
  } finally {
    onTrace = null
  }
}

/**
 * The statements SQLite ran for `work` (BEGIN and COMMIT included), between two marker
 * statements: node-sqlite3 reports a statement's trace asynchronously, so one run just before
 * the window (a phone's connection being handled) could otherwise be reported inside it, and
 * one of `work` after it.
 */
export async function statementsRunBy(work: () => Promise<unknown>): Promise<string[]> {
  const statements: string[] = []
  let state: 'before' | 'counting' | 'done' = 'before'
  const listener = (sql: string) => {
    if (sql === FROM_HERE) state = 'counting'
    else if (sql === TO_HERE) state = 'done'
    else if (state === 'counting') statements.push(sql)
  }
  await following(
    listener,
    async () => {
      await db.rawQuery(FROM_HERE)
      await work()
      await db.rawQuery(TO_HERE)
    },
    () => state === 'done'
  )
  return statements
}

/** The statements SQLite ran in the one transaction `work` opens, BEGIN to COMMIT, both included. */
export async function transactionOf(work: () => Promise<unknown>): Promise<string[]> {
  const statements: string[] = []
  let state: 'before' | 'inside' | 'done' = 'before'
  const listener = (sql: string) => {
    if (state === 'before' && /^BEGIN/i.test(sql)) state = 'inside'
    if (state === 'inside') statements.push(sql)
    if (state === 'inside' && /^COMMIT/i.test(sql)) state = 'done'
  }
  await following(listener, work, () => state === 'done')
  return statements
}
