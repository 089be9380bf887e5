import { defineConfig } from '@adonisjs/lucid'
import { DataFolder } from '#core/data_folder/data_folder'

/**
 * SQLite through the `sqlite3` package (STACK.md: the configure step writes better-sqlite3).
 * Every connection gets WAL, foreign keys and a busy timeout before it is used.
 */
/** The read-only connection's name (app/core/database/read_connection.ts says what it is for). */
export const READ_CONNECTION = 'reads'

const dbConfig = defineConfig({
  connection: 'sqlite',
  connections: {
    sqlite: {
      client: 'sqlite3',
      connection: {
        filename: DataFolder.current().databaseFile,
      },
      useNullAsDefault: true,
      // A failed query's error must not carry its SQL with the bound values (numbers, SMS
      // text): knex option, passed through by Lucid though its types do not list it.
      ...({ compileSqlOnError: false } as {}),
      pool: {
        afterCreate: (connection: any, done: (error: Error | null, connection: unknown) => void) => {
          connection.exec(
            'PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;',
            (error: Error | null) => done(error, connection)
          )
        },
      },
      migrations: {
        naturalSort: true,
        paths: ['database/migrations'],
      },
    },
    // The same file, read-only, for the reads of the dispatcher's pass: in WAL mode they run
    // beside the writer instead of queuing behind its writes (app/core/database/read_connection.ts).
    [READ_CONNECTION]: {
      client: 'sqlite3',
      connection: {
        filename: DataFolder.current().databaseFile,
      },
      useNullAsDefault: true,
      ...({ compileSqlOnError: false } as {}),
      pool: {
        afterCreate: (connection: any, done: (error: Error | null, connection: unknown) => void) => {
          connection.exec('PRAGMA query_only = ON; PRAGMA busy_timeout = 5000;', (error: Error | null) => done(error, connection))
        },
      },
    },
  },
})

export default dbConfig
