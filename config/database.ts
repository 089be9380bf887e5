import { defineConfig } from '@adonisjs/lucid'
import { DataFolder } from '#core/data_folder/data_folder'
import { migrationFolders } from '#core/database/migration_folders'

/** The read-only connection's name (app/core/database/read_connection.ts says what it is for). */
export const READ_CONNECTION = 'reads'

/** A connection to the gateway's one database file, given its pragmas before it is used. */
function databaseFileConnection(pragmas: string) {
  return {
    client: 'sqlite3' as const,
    connection: {
      filename: DataFolder.current().databaseFile,
    },
    useNullAsDefault: true,
    // A failed query's error must not carry its SQL with the bound values (numbers, SMS
    // text): knex option, passed through by Lucid though its types do not list it.
    ...({ compileSqlOnError: false } as {}),
    pool: {
      afterCreate: (connection: any, done: (error: Error | null, connection: unknown) => void) => {
        connection.exec(pragmas, (error: Error | null) => done(error, connection))
      },
    },
  }
}

/**
 * SQLite through the `sqlite3` package (not better-sqlite3, which the Lucid configure step would write).
 * The writer gets WAL, foreign keys and a busy timeout before it is used.
 */
const dbConfig = defineConfig({
  connection: 'sqlite',
  connections: {
    sqlite: {
      ...databaseFileConnection('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;'),
      migrations: {
        naturalSort: true,
        // database/migrations first (its files never move: adonis_schema names them with their
        // folder), then core's and each module's own migrations folder, found on disk, in the
        // order app/core/database/migration_folders.ts states. The root is this file's parent
        // folder, so the compiled build (build/config/) reads build/'s folders.
        paths: migrationFolders(new URL('../', import.meta.url)),
      },
    },
    // The same file, read-only, for the reads of the dispatcher's pass: in WAL mode they run
    // beside the writer instead of queuing behind its writes (app/core/database/read_connection.ts).
    [READ_CONNECTION]: databaseFileConnection('PRAGMA query_only = ON; PRAGMA busy_timeout = 5000;'),
  },
})

export default dbConfig
