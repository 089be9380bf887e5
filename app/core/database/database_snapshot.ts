import sqlite3 from 'sqlite3'

/**
 * A consistent copy of a live SQLite database, taken while the gateway keeps serving
 * (a plain file copy under WAL can miss committed pages). `VACUUM INTO` runs on a connection of its own, opened read-only:
 * under WAL it reads one snapshot and never holds the write lock, so the gateway's writes go on
 * (a read-write connection would make the gateway's transactions fail with SQLITE_BUSY). The
 * target must not exist; the copy is a plain rollback-journal file, ready to be moved or served.
 */
export function snapshotDatabase(source: string, target: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const connection = new sqlite3.Database(source, sqlite3.OPEN_READONLY, (openError) => {
      if (openError) return reject(openError)
      connection.run('VACUUM INTO ?', [target], (vacuumError) => {
        connection.close((closeError) => {
          const error = vacuumError ?? closeError
          if (error) reject(error)
          else resolve()
        })
      })
    })
  })
}
