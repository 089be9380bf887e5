import type { ApplicationService } from '@adonisjs/core/types'
import { MigrationRunner } from '@adonisjs/lucid/migration'
import { closeReadConnection } from '#core/database/read_connection'

/**
 * Applies pending migrations. Runs at every start, so a fresh install needs no manual step
 * and an older database (a restored backup included) is upgraded before use.
 */
export async function migrateDatabase(app: ApplicationService): Promise<string[]> {
  const db = await app.container.make('lucid.db')
  const runner = new MigrationRunner(db, app, { direction: 'up', dryRun: false })
  await runner.run()
  if (runner.error) throw runner.error
  return Object.values(runner.migratedFiles)
    .filter((file) => file.status === 'completed')
    .map((file) => file.file.name)
}

/** Folds the WAL back into gateway.db so the file on disk is whole once the gateway stops. */
export async function checkpointDatabase(app: ApplicationService): Promise<void> {
  const db = await app.container.make('lucid.db')
  await closeReadConnection()
  if (!db.manager.isConnected(db.primaryConnectionName)) return
  await db.rawQuery('PRAGMA wal_checkpoint(TRUNCATE)')
}
